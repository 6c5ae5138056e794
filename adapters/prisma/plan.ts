/**
 * The INSERT plan of one Prisma model: its fields and their codecs, what fastInsert fills in as
 * Prisma's client does (static defaults, now(), @updatedAt, uuid/cuid/nanoid/ulid; autoincrement()
 * and dbgenerated() are the database's), and how one row of create()'s `data` becomes the values
 * of its INSERT. Built once per (client, model); fast-insert.ts sends what it plans.
 */
import { FastTestDbError } from '../../src/adapter-kit.js';
import type { Coalesced } from '../shared/coalesce.js';
import { engineFor } from '../../src/adapter-kit.js';
import { insertSql } from '../shared/insert-sql.js';
import type { PrismaDriver } from './driver.js';
import { clientGenerated } from './generators.js';
import type { DefaultArg, PrismaField, PrismaModel, PrismaSchema } from './schema.js';
import { codecFor, type DecimalCtor, type FieldCodec } from './values.js';

export interface FieldPlan {
  field: PrismaField;
  codec: FieldCodec;
  /** What to write when the row does not give the field; undefined: leave it to the database. */
  fill?: (now: Date) => unknown;
}

export interface ModelPlan {
  model: PrismaModel;
  table: string[];
  fields: FieldPlan[];
  byName: Map<string, FieldPlan>;
  /** Relation field names: giving one means a nested write, which fastInsert does not do. */
  relations: Set<string>;
  /** The autoincrement() field, if any (servers without RETURNING report its values as insertId). */
  autoincrement?: FieldPlan;
  /** Statement text per (column set, row count, returning): built once, reused as a prepared statement. */
  statements: Map<string, string>;
  /**
   * Where the engine coalesces (Inserts.coalesce): single-row calls started in the same tick, sent together as one multi-row INSERT (a
   * refused batch is sent again row by row; the batch shares now() and statement triggers fire once).
   */
  coalesced?: Coalesced<PreparedRow, Record<string, unknown> | undefined>;
}

export interface FastInsertContext {
  schema: PrismaSchema;
  driver: PrismaDriver;
  Decimal: DecimalCtor;
  parseTextArray: (s: string) => Array<string | null>;
  /** MySQL's auto_increment_increment, read once. */
  autoIncrementStep?: number;
  plans: Map<string, ModelPlan>;
}

function staticValue(arg: DefaultArg, field: PrismaField): unknown {
  if (Array.isArray(arg)) return arg.map((a) => staticValue(a, field));
  if (arg && typeof arg === 'object' && 'ident' in arg) return arg.ident;
  if (field.type === 'BigInt' && typeof arg === 'number') return BigInt(arg);
  if (field.type === 'Decimal' && typeof arg === 'number') return String(arg);
  // Json defaults are written as a string holding JSON; Bytes defaults as base64.
  if (field.type === 'Json' && typeof arg === 'string') return JSON.parse(arg);
  if (field.type === 'Bytes' && typeof arg === 'string') return Buffer.from(arg, 'base64');
  return arg;
}

export function planFor(ctx: FastInsertContext, modelName: string): ModelPlan {
  const cached = ctx.plans.get(modelName);
  if (cached) return cached;
  const model = ctx.schema.models.get(modelName);
  if (!model) {
    throw new FastTestDbError(
      'BAD_OPTION',
      `fastInsert: model ${modelName} is not in the Prisma schema`,
      `use one of ${[...ctx.schema.models.keys()].join(', ')}`,
    );
  }
  const { engine } = ctx.driver;
  const plan: ModelPlan = {
    model,
    table: model.schema && engineFor(engine).inserts.tableNamespace === 'schema' ? [model.schema, model.dbName] : [model.dbName],
    fields: [],
    byName: new Map(),
    relations: new Set(),
    statements: new Map(),
  };
  for (const field of model.fields) {
    if (field.kind === 'object') {
      plan.relations.add(field.name);
      continue;
    }
    if (field.kind === 'unsupported') continue;
    const fp: FieldPlan = { field, codec: codecFor(field, model.name, engine, ctx.schema.enums, ctx.Decimal, ctx.parseTextArray) };
    const d = field.default;
    if (d?.kind === 'fn') {
      if (d.name === 'now') fp.fill = (now) => now;
      else if (d.name === 'autoincrement') plan.autoincrement = fp;
      else if (d.name === 'dbgenerated' || d.name === 'sequence') {
        // the database computes it
      } else {
        const gen = clientGenerated(d.name, d.args);
        if (!gen) {
          const name = d.name;
          fp.fill = () => {
            throw new FastTestDbError(
              'UNSUPPORTED',
              `fastInsert ${model.name}.${field.name}: @default(${name}(...)) is not something fastInsert can compute`,
              'pass a value for this field in every row',
            );
          };
        } else fp.fill = gen;
      }
    } else if (d?.kind === 'value') {
      const v = staticValue(d.value, field);
      fp.fill = () => v;
    }
    // @updatedAt wins over any @default: Prisma writes the request's now() either way.
    if (field.updatedAt) fp.fill = (now) => now;
    plan.fields.push(fp);
    plan.byName.set(field.name, fp);
  }
  ctx.plans.set(modelName, plan);
  return plan;
}

/** The parameters of one row, in plan field order, and which fields they cover. */
export interface PreparedRow {
  fields: FieldPlan[];
  values: unknown[];
  /** The field set: rows with the same key share a statement. */
  key: string;
}

export function prepareRow(plan: ModelPlan, row: Record<string, unknown>, now: Date): PreparedRow {
  if (!row || typeof row !== 'object' || Array.isArray(row)) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fastInsert ${plan.model.name}: each row must be a plain object, got ${Array.isArray(row) ? 'an array' : typeof row}`,
      'pass the object you would pass as create({ data })',
    );
  }
  for (const key of Object.keys(row)) {
    if (plan.byName.has(key) || row[key] === undefined) continue;
    if (plan.relations.has(key)) {
      throw new FastTestDbError(
        'UNSUPPORTED',
        `fastInsert ${plan.model.name}.${key}: nested relation writes (connect/create) are not supported`,
        `insert the related rows first and pass the foreign key field instead (e.g. ${plan.model.name.toLowerCase()}.authorId)`,
      );
    }
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fastInsert ${plan.model.name}: unknown field "${key}"`,
      `fields of ${plan.model.name} are ${[...plan.byName.keys()].join(', ')}`,
    );
  }
  const fields: FieldPlan[] = [];
  const values: unknown[] = [];
  // Which fields the row covers, as text: the key of its statement.
  let key = '';
  for (let i = 0; i < plan.fields.length; i++) {
    const fp = plan.fields[i]!;
    const given = row[fp.field.name];
    if (given !== undefined) {
      fields.push(fp);
      values.push(fp.codec.write(given));
      key += i + ',';
    } else if (fp.fill) {
      fields.push(fp);
      values.push(fp.codec.write(fp.fill(now)));
      key += i + ',';
    } else if (!fp.field.optional && !fp.field.list && fp.field.default === undefined) {
      throw new FastTestDbError(
        'UNSUPPORTED',
        `fastInsert ${plan.model.name}: required field ${fp.field.name} is missing`,
        'give it in every row (create() rejects this row too)',
      );
    }
  }
  return { fields, values, key };
}

/** Maps a driver row (keyed by column) to create()'s record (keyed by field). */
export function toRecord(plan: ModelPlan, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const fp of plan.fields) out[fp.field.name] = fp.codec.read(row[fp.field.dbName]);
  return out;
}

/** PostgreSQL and MariaDB answer an INSERT with its rows (RETURNING); MySQL's are read back by key. */
export const canReturn = (driver: PrismaDriver): boolean => engineFor(driver.engine).inserts.returningOn(driver.flavor);

/** The INSERT for one column set and row count, built once per plan. */
export function statementFor(
  plan: ModelPlan,
  driver: PrismaDriver,
  key: string,
  fields: FieldPlan[],
  rows: number,
  wantRows: boolean,
): string {
  const sqlKey = `${key}|${rows}|${wantRows ? 1 : 0}`;
  let sql = plan.statements.get(sqlKey);
  if (sql) return sql;
  const returning = wantRows ? plan.fields.map((f) => f.field.dbName) : undefined;
  const { engine, flavor } = driver;
  sql = insertSql({ engine, flavor, table: plan.table, columns: fields.map((f) => f.field.dbName), rows, returning });
  if (plan.statements.size > 1000) plan.statements.clear();
  plan.statements.set(sqlKey, sql);
  return sql;
}
