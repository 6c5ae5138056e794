/**
 * fastInsert for Prisma: the INSERT that `create()` would run, built once per (model, column set)
 * from the schema, sent as a prepared statement straight on the driver pool the client's adapter
 * uses. It fills in what Prisma's client fills in (static defaults, now(), @updatedAt, uuid/cuid/
 * nanoid/ulid) and leaves autoincrement() and dbgenerated() to the database, like create() does.
 */
import { coalescer, type Coalesced } from '../shared/coalesce.js';
import { insertSql, rowsPerStatement } from '../shared/insert-sql.js';
import type { DriverSession, PrismaDriver, StatementResult } from './driver.js';
import { clientGenerated } from './generators.js';
import type { DefaultArg, PrismaField, PrismaModel, PrismaSchema } from './schema.js';
import { codecFor, type DecimalCtor, type FieldCodec } from './values.js';
import { FastTestDbError, quoteIdent } from '../../src/adapter-kit.js';

interface FieldPlan {
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
  /** The autoincrement() field, if any (MySQL family reports its values as insertId). */
  autoincrement?: FieldPlan;
  /** Statement text per (column set, row count, returning): built once, reused as a prepared statement. */
  statements: Map<string, string>;
  /**
   * PostgreSQL: single-row calls started in the same tick, sent together as one multi-row INSERT (a
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
  const family = ctx.driver.family;
  const plan: ModelPlan = {
    model,
    table: model.schema && family === 'postgres' ? [model.schema, model.dbName] : [model.dbName],
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
    const fp: FieldPlan = { field, codec: codecFor(field, model.name, family, ctx.schema.enums, ctx.Decimal, ctx.parseTextArray) };
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
interface PreparedRow {
  fields: FieldPlan[];
  values: unknown[];
  /** The field set: rows with the same key share a statement. */
  key: string;
}

function prepareRow(plan: ModelPlan, row: Record<string, unknown>, now: Date): PreparedRow {
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
function toRecord(plan: ModelPlan, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const fp of plan.fields) out[fp.field.name] = fp.codec.read(row[fp.field.dbName]);
  return out;
}

/** PostgreSQL and MariaDB answer an INSERT with its rows (RETURNING); MySQL's are read back by key. */
const canReturn = (driver: PrismaDriver): boolean => driver.family === 'postgres' || driver.flavor === 'mariadb';

/** The INSERT for one column set and row count, built once per plan. */
function statementFor(plan: ModelPlan, driver: PrismaDriver, key: string, fields: FieldPlan[], rows: number, wantRows: boolean): string {
  const sqlKey = `${key}|${rows}|${wantRows ? 1 : 0}`;
  let sql = plan.statements.get(sqlKey);
  if (sql) return sql;
  const { family } = driver;
  const returning = wantRows ? plan.fields.map((f) => f.field.dbName) : undefined;
  sql = insertSql({ family, table: plan.table, columns: fields.map((f) => f.field.dbName), rows, returning });
  if (family === 'mysql' && canReturn(driver) && returning) sql += ` RETURNING ${returning.map((c) => quoteIdent(family, c)).join(', ')}`;
  if (plan.statements.size > 1000) plan.statements.clear();
  plan.statements.set(sqlKey, sql);
  return sql;
}

/**
 * Inserts `rows` into `modelName` and returns records shaped like create() returns them, in
 * input order. Rows with different sets of fields go into different statements, so that a
 * missing field always means the same thing (its default), never NULL by accident.
 */
export async function insertRows(
  ctx: FastInsertContext,
  modelName: string,
  rows: Array<Record<string, unknown>>,
  opts: { returning?: boolean; coalesce?: boolean } = {},
): Promise<Array<Record<string, unknown> | undefined>> {
  const plan = planFor(ctx, modelName);
  const { driver } = ctx;
  const family = driver.family;
  // One `now` per call, as Prisma uses one per request.
  const now = new Date();
  const wantRows = opts.returning !== false;
  if (rows.length === 1) {
    const row = prepareRow(plan, rows[0]!, now);
    // Coalesced on PostgreSQL only (see adapters/shared/coalesce.ts).
    if (family !== 'postgres' || opts.coalesce === false) return statementRows(ctx, driver, plan, [row], wantRows);
    plan.coalesced ??= coalescer<PreparedRow, StatementResult, Record<string, unknown> | undefined>({
      limit: (row) => rowsPerStatement(family, row.fields.length),
      one: async (row, returning) => (await statementRows(ctx, driver, plan, [row], returning))[0],
      send: (rows, returning) => sendRows(ctx, driver, plan, rows, returning),
      finish: (rows, returning, res) => recordsOf(ctx, driver, plan, rows, returning, res),
    });
    return [await plan.coalesced.add(row.key, wantRows, row)];
  }
  const groups = new Map<string, { rows: PreparedRow[]; indexes: number[] }>();
  rows.forEach((r, i) => {
    const row = prepareRow(plan, r, now);
    let g = groups.get(row.key);
    if (!g) groups.set(row.key, (g = { rows: [], indexes: [] }));
    g.rows.push(row);
    g.indexes.push(i);
  });
  const statements: Array<{ rows: PreparedRow[]; indexes: number[] }> = [];
  for (const g of groups.values()) {
    const per = rowsPerStatement(family, g.rows[0]!.fields.length);
    for (let at = 0; at < g.rows.length; at += per)
      statements.push({ rows: g.rows.slice(at, at + per), indexes: g.indexes.slice(at, at + per) });
  }
  const out = new Array<Record<string, unknown> | undefined>(rows.length);
  const runAll = async (session: DriverSession) => {
    for (const st of statements) {
      const records = await statementRows(ctx, session, plan, st.rows, wantRows);
      for (let k = 0; k < records.length; k++) out[st.indexes[k]!] = records[k];
    }
  };
  // Several statements (big arrays, mixed column sets) run in one transaction: all rows or none,
  // as createMany() does.
  if (statements.length === 1) await runAll(driver);
  else await driver.transaction(runAll);
  return out;
}

/** One statement for rows of one field set: the records create() would return, in row order (none without wantRows). */
async function statementRows(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  rows: PreparedRow[],
  wantRows: boolean,
): Promise<Array<Record<string, unknown> | undefined>> {
  return recordsOf(ctx, driver, plan, rows, wantRows, await sendRows(ctx, driver, plan, rows, wantRows));
}

function sendRows(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  rows: PreparedRow[],
  wantRows: boolean,
): Promise<StatementResult> {
  const { fields, key } = rows[0]!;
  const sql = statementFor(plan, ctx.driver, key, fields, rows.length, wantRows);
  return driver.run(sql, rows.length === 1 ? rows[0]!.values : rows.flatMap((r) => r.values));
}

/** The records of rows the statement wrote: from RETURNING, or read back by key (MySQL). */
async function recordsOf(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  rows: PreparedRow[],
  wantRows: boolean,
  res: StatementResult,
): Promise<Array<Record<string, unknown> | undefined>> {
  if (!wantRows) return rows.map(() => undefined);
  if (canReturn(ctx.driver)) return res.rows.map((r) => toRecord(plan, r));
  return reselect(
    ctx,
    driver,
    plan,
    rows[0]!.fields,
    rows.map((r) => r.values),
    res.insertId,
  );
}

/**
 * MySQL has no RETURNING: read the rows back by primary key, as Prisma does after an insert
 * there. AUTO_INCREMENT values of one multi-row INSERT are consecutive from insertId.
 */
async function reselect(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  fields: FieldPlan[],
  batch: unknown[][],
  insertId: bigint | undefined,
): Promise<Array<Record<string, unknown>>> {
  const pk = plan.model.primaryKey.map((n) => plan.byName.get(n)!);
  if (!pk.length || pk.some((f) => !f)) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fastInsert ${plan.model.name}: on MySQL a model needs a primary key to read inserted rows back`,
      'add @id/@@id, or use createMany() for this model',
    );
  }
  const auto = plan.autoincrement;
  const autoGiven = auto ? fields.includes(auto) : false;
  if (auto && !autoGiven && ctx.autoIncrementStep === undefined) {
    const r = await driver.query('SELECT @@auto_increment_increment AS step');
    ctx.autoIncrementStep = Number(r[0]?.step ?? 1);
  }
  const keys = batch.map((values, k) =>
    pk.map((f) => {
      const at = fields.indexOf(f);
      if (at >= 0) return values[at];
      if (f === auto && insertId !== undefined) return String(insertId + BigInt(k * (ctx.autoIncrementStep ?? 1)));
      throw new FastTestDbError(
        'UNSUPPORTED',
        `fastInsert ${plan.model.name}: primary key ${f.field.name} is generated by the database and cannot be read back on MySQL`,
        'pass the key in every row',
      );
    }),
  );
  const q = (c: string) => quoteIdent('mysql', c);
  const cols = plan.fields.map((f) => q(f.field.dbName)).join(', ');
  const tuple = `(${pk.map(() => '?').join(', ')})`;
  const sql = `SELECT ${cols} FROM ${q(plan.model.dbName)} WHERE (${pk.map((f) => q(f.field.dbName)).join(', ')}) IN (${keys.map(() => tuple).join(', ')})`;
  const rows = await driver.query(sql, keys.flat());
  const byKey = new Map(rows.map((r) => [pk.map((f) => String(r[f.field.dbName])).join('\0'), r]));
  return keys.map((k) => {
    const r = byKey.get(k.map(String).join('\0'));
    if (!r)
      throw new FastTestDbError(
        'QUERY_FAILED',
        `fastInsert ${plan.model.name}: an inserted row could not be read back`,
        'check auto_increment settings of the server',
      );
    return toRecord(plan, r);
  });
}
