/**
 * fastInsert: the rows repository.insert() would write, without what insert() does around them
 * (query builder, parameter rewriting, a QueryRunner per call, a SELECT to reload defaults on MySQL).
 * The statement text is built once per (entity, column set, row count) from TypeORM's metadata and
 * sent prepared; values go through the driver's own preparePersistentValue, as insert() does.
 */
import { randomUUID } from 'node:crypto';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata.js';
import type { DataSource, DeepPartial, EntityTarget, ObjectLiteral, QueryRunner, Repository } from 'typeorm';
import { chunk, insertSql, rowsPerStatement } from '../shared/insert-sql.js';
import { coalescer, type Coalesced } from '../shared/coalesce.js';
import { familyOf, poolOf, poolRunner, runnerFor, type InsertOutcome, type InsertStatement } from './driver.js';
import { dataSourceOf } from './orm.js';
import { FastTestDbError, type SqlFamily } from '../../src/adapter-kit.js';

export interface FastInsertOptions {
  /**
   * Entity subscribers with beforeInsert/afterInsert are not called by fastInsert. By default their
   * presence is an error (the row could differ from insert()'s); 'skip' inserts without them.
   */
  subscribers?: 'error' | 'skip';
  /**
   * PostgreSQL: ask the row back with RETURNING (keys and defaults, as insert() does). Default true;
   * false resolves to nothing and sends no RETURNING, for seeding that never reads the keys.
   */
  returning?: boolean;
  /**
   * PostgreSQL: single-row calls on the DataSource's pool started in the same tick (Promise.all
   * over a map) go out together as multi-row INSERTs: a batch the server refuses is sent again row
   * by row, so each call settles as alone; what differs: sequence values the refused batch drew are
   * skipped, now() is one value per batch, statement triggers fire once per batch. Default true;
   * false sends each call as its own statement.
   */
  coalesce?: boolean;
}

export type FastInsertTarget<T extends ObjectLiteral> = Repository<T> | { entity: EntityTarget<T>; dataSource: DataSource };

interface EntityPlan {
  metadata: EntityMetadata;
  dataSource: DataSource;
  family: SqlFamily;
  table: string[];
  /** Columns an INSERT may carry, in metadata order (the order insert() uses). */
  columns: ColumnMetadata[];
  spatial: Set<ColumnMetadata>;
  /** UUID keys TypeORM generates in the client because the engine cannot (MySQL). */
  clientUuid: Set<ColumnMetadata>;
  /** MySQL: the AUTO_INCREMENT key whose value comes back as insertId. */
  increment?: ColumnMetadata;
  /** PostgreSQL: what insert() asks back with RETURNING. */
  returning: ColumnMetadata[];
  statements: Map<string, { text: string; columns: ColumnMetadata[] }>;
  pool?: { owner: unknown; run: InsertStatement; coalesced: Coalesced<PreparedRow, InsertOutcome> };
  subscribersChecked: boolean;
}

/** Keyed by metadata: a DataSource initialised again builds new metadata, and so gets new plans. */
const plans = new WeakMap<EntityMetadata, EntityPlan>();

function unsupported(what: string, fix: string): FastTestDbError {
  return new FastTestDbError('UNSUPPORTED', `fastInsert: ${what}`, fix);
}

function planFor(dataSource: DataSource, target: EntityTarget<ObjectLiteral>, metadata?: EntityMetadata): EntityPlan {
  const md = metadata ?? dataSource.getMetadata(target);
  let plan = plans.get(md);
  if (plan) return plan;

  const family = familyOf(dataSource);
  const driver = dataSource.driver;
  if (md.treeType) {
    throw unsupported(
      `${md.name} is a tree entity (${md.treeType}); insert() would write it without its tree bookkeeping`,
      'seed tree entities with repository.save() or treeRepository.save()',
    );
  }
  if (md.tableType === 'view') throw unsupported(`${md.name} is a view entity`, 'insert into the tables the view reads from');
  const columns = md.columns.filter((c) => {
    if (!c.isInsert) return false;
    // insert() leaves SERIAL keys out on PostgreSQL, even when the row carries a value.
    if (family === 'postgres' && c.isGenerated && c.generationStrategy === 'increment') return false;
    return true;
  });
  const spatialTypes = (driver as unknown as { spatialTypes: unknown[] }).spatialTypes ?? [];
  plan = {
    metadata: md,
    dataSource,
    family,
    table: [family === 'postgres' ? md.schema : md.database, md.tableName].filter((p): p is string => !!p),
    columns,
    spatial: new Set(columns.filter((c) => spatialTypes.includes(c.type))),
    clientUuid: new Set(columns.filter((c) => c.isGenerated && c.generationStrategy === 'uuid' && !driver.isUUIDGenerationSupported())),
    increment: md.columns.find((c) => c.isPrimary && c.isGenerated && c.generationStrategy === 'increment'),
    returning: family === 'postgres' ? returningColumns(md) : [],
    statements: new Map(),
    subscribersChecked: false,
  };
  plans.set(md, plan);
  return plan;
}

/**
 * What insert() asks back with RETURNING. 0.2.x has no EntityMetadata method for it (its query
 * builder filters the same way, without generated-column expressions, which 0.2 lacks).
 */
function returningColumns(md: EntityMetadata): ColumnMetadata[] {
  if (typeof md.getInsertionReturningColumns === 'function') return md.getInsertionReturningColumns();
  return md.columns.filter(
    (c) => c.default !== undefined || c.isGenerated || c.isCreateDate || c.isUpdateDate || c.isDeleteDate || c.isVersion,
  );
}

function checkSubscribers(plan: EntityPlan, opts: FastInsertOptions): void {
  if (plan.subscribersChecked || opts.subscribers === 'skip') return;
  const target = plan.metadata.target;
  const listening = plan.dataSource.subscribers.filter((s) => {
    if (!s.beforeInsert && !s.afterInsert) return false;
    const to = s.listenTo?.();
    return !to || to === Object || to === target || (typeof target === 'function' && target.prototype instanceof (to as new () => unknown));
  });
  if (listening.length) {
    throw unsupported(
      `${listening.map((s) => s.constructor.name).join(', ')} listen(s) to inserts of ${plan.metadata.name}, and fastInsert does not call subscribers`,
      `pass { subscribers: 'skip' } if the rows do not depend on them, or use repository.insert() for this entity`,
    );
  }
  plan.subscribersChecked = true;
}

interface PreparedRow {
  key: string;
  values: unknown[];
  columns: ColumnMetadata[];
  local?: Map<ColumnMetadata, unknown>;
}

/** One row's values, exactly as insert() computes them; undefined means DEFAULT, so the column is left out. */
function prepareRow(plan: EntityPlan, row: ObjectLiteral): PreparedRow {
  const driver = plan.dataSource.driver;
  const values: unknown[] = [];
  const columns: ColumnMetadata[] = [];
  let key = '';
  let local: Map<ColumnMetadata, unknown> | undefined;
  const cols = plan.columns;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!;
    let v: unknown;
    if (c.isDiscriminator) {
      v = plan.metadata.discriminatorValue;
    } else {
      v = c.getEntityValue(row);
      if (typeof v === 'function') {
        throw unsupported(
          `${plan.metadata.name}.${c.propertyPath} is a SQL expression (a function value)`,
          'pass a plain value, or use repository.insert() for rows with SQL expressions',
        );
      }
      if (v === undefined && c.relationMetadata && c.referencedColumn) checkRelation(plan, c, row);
      v = driver.preparePersistentValue(v, c);
      if (v === undefined) {
        if (c.isVersion) v = 1;
        else if (plan.clientUuid.has(c)) {
          v = randomUUID();
          (local ??= new Map()).set(c, v);
        } else continue;
      } else if (v !== null && plan.spatial.has(c)) {
        throw unsupported(
          `${plan.metadata.name}.${c.propertyPath} is a spatial column`,
          'use repository.insert() for rows with spatial values',
        );
      }
    }
    key += i + ',';
    values.push(v);
    columns.push(c);
  }
  return { key, values, columns, local };
}

/** A related object without its key would silently become a NULL foreign key: insert() does that, we refuse. */
function checkRelation(plan: EntityPlan, c: ColumnMetadata, row: ObjectLiteral): void {
  const related = c.relationMetadata!.getEntityValue(row);
  if (related !== null && typeof related === 'object' && !(related instanceof Date) && !ArrayBuffer.isView(related)) {
    throw unsupported(
      `${plan.metadata.name}.${c.relationMetadata!.propertyPath} is an object without ${c.referencedColumn!.propertyPath}; fastInsert does not cascade, so its foreign key would be NULL`,
      'insert the related row first (fastInsert returns its key) and pass it, or pass its id',
    );
  }
}

function statement(plan: EntityPlan, row: PreparedRow, rows: number, returning: boolean): string {
  const k = row.key + (returning ? '|r' : '|n') + rows;
  let st = plan.statements.get(k);
  if (!st) {
    const text = insertSql({
      family: plan.family,
      table: plan.table,
      columns: row.columns.map((c) => c.databaseName),
      rows,
      returning: returning ? plan.returning.map((c) => c.databaseName) : [],
    });
    st = { text, columns: row.columns };
    if (plan.statements.size > 2000) plan.statements.clear();
    plan.statements.set(k, st);
  }
  return st.text;
}

function resolveTarget<T extends ObjectLiteral>(
  target: FastInsertTarget<T>,
): { dataSource: DataSource; entity: EntityTarget<T>; metadata?: EntityMetadata; queryRunner?: QueryRunner } {
  if ('entity' in target && 'dataSource' in target && !('metadata' in target)) {
    return { dataSource: target.dataSource, entity: target.entity };
  }
  const repo = target as Repository<T>;
  if (!repo.manager || !repo.metadata) {
    throw new FastTestDbError(
      'BAD_OPTION',
      'fastInsert: the first argument is neither a Repository nor { entity, dataSource }',
      'pass dataSource.getRepository(Entity), or { entity: Entity, dataSource }',
    );
  }
  const dataSource = dataSourceOf(repo.manager);
  if (!dataSource?.driver) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      "fastInsert: this repository's manager has no DataSource (or Connection) with a driver",
      'pass a repository from dataSource.getRepository(Entity) (TypeORM 0.3/1.x) or connection.getRepository(Entity) (0.2.x)',
    );
  }
  return { dataSource, entity: repo.target, metadata: repo.metadata, queryRunner: repo.queryRunner ?? repo.manager.queryRunner };
}

type Returning = FastInsertOptions & { returning?: true };

/**
 * Inserts one row or many, as `repository.insert()` would write them, and resolves to the objects
 * passed in (one in: that object; an array in: the same objects in input order) with what the
 * database or fastInsert generated set on them: on PostgreSQL every column insert() asks back with
 * RETURNING (keys, defaults, generated columns); on MySQL/MariaDB the AUTO_INCREMENT key and
 * client-side UUIDs, beside the values given. `{ returning: false }` resolves to nothing.
 * Arrays go out as multi-row INSERTs within the engine's parameter limit.
 */
export function fastInsert<T extends ObjectLiteral>(
  target: FastInsertTarget<T>,
  rows: ReadonlyArray<DeepPartial<T>>,
  opts?: Returning,
): Promise<T[]>;
export function fastInsert<T extends ObjectLiteral>(target: FastInsertTarget<T>, row: DeepPartial<T>, opts?: Returning): Promise<T>;
export function fastInsert<T extends ObjectLiteral>(
  target: FastInsertTarget<T>,
  rowOrRows: DeepPartial<T> | ReadonlyArray<DeepPartial<T>>,
  opts: FastInsertOptions & { returning: false },
): Promise<void>;
export async function fastInsert<T extends ObjectLiteral>(
  target: FastInsertTarget<T>,
  rowOrRows: DeepPartial<T> | ReadonlyArray<DeepPartial<T>>,
  opts: FastInsertOptions = {},
): Promise<T | T[] | undefined> {
  const rows = (Array.isArray(rowOrRows) ? rowOrRows : [rowOrRows]) as ObjectLiteral[];
  await insertEntities(target, rows, opts);
  if (opts.returning === false) return undefined;
  return (Array.isArray(rowOrRows) ? rows : rows[0]) as T | T[];
}

/** Writes the rows and sets what was generated on them, once every statement has succeeded. */
async function insertEntities<T extends ObjectLiteral>(
  target: FastInsertTarget<T>,
  rows: ObjectLiteral[],
  opts: FastInsertOptions,
): Promise<void> {
  const { dataSource, entity, metadata, queryRunner } = resolveTarget(target);
  const plan = planFor(dataSource, entity as EntityTarget<ObjectLiteral>, metadata);
  checkSubscribers(plan, opts);
  if (rows.length === 0) return;

  const md = plan.metadata;
  if (md.beforeInsertListeners.length) await runListeners(md.beforeInsertListeners, rows);

  const prepared: PreparedRow[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) prepared[i] = prepareRow(plan, rows[i]!);
  const batches = rows.length === 1 ? SINGLE : batchesOf(plan, prepared);
  // Nothing to ask back (keys given, no defaults): no RETURNING, so no rows to match to calls either.
  const returning = opts.returning !== false && plan.returning.length > 0;

  let outs: InsertOutcome[];
  if (queryRunner && !queryRunner.isReleased) {
    outs = await runBatches(plan, await runnerFor(plan.family, queryRunner), prepared, batches, returning);
  } else if (batches.length > 1) {
    // Several statements: one transaction, so that a failure leaves no part of the rows behind (as insert()'s single statement would not).
    const qr = dataSource.createQueryRunner('master');
    try {
      await qr.startTransaction();
      outs = await runBatches(plan, await runnerFor(plan.family, qr), prepared, batches, returning);
      await qr.commitTransaction();
    } catch (e) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw e;
    } finally {
      await qr.release();
    }
  } else {
    const pool = poolFor(plan);
    outs =
      rows.length === 1 && plan.family === 'postgres' && opts.coalesce !== false
        ? [await pool.coalesced.add(prepared[0]!.key, returning, prepared[0]!)]
        : await runBatches(plan, pool.run, prepared, batches, returning);
  }
  // Keys go onto the caller's objects only once every statement has succeeded.
  for (let b = 0; b < batches.length; b++) {
    const part = batches[b]!;
    const out = outs[b]!;
    for (let j = 0; j < part.length; j++) {
      const i = part[j]!;
      applyGenerated(plan, rows[i]!, prepared[i]!, out.rows[j], out.insertId ? out.insertId + j : 0);
    }
  }
  if (md.afterInsertListeners.length) await runListeners(md.afterInsertListeners, rows);
}

const SINGLE: number[][] = [[0]];

/** The plan's statements on the DataSource's pool, which changes when the DataSource is destroyed and initialised again. */
function poolFor(plan: EntityPlan): NonNullable<EntityPlan['pool']> {
  const owner = poolOf(plan.dataSource);
  const current = plan.pool;
  if (current && current.owner === owner) return current;
  const run = poolRunner(plan.dataSource, plan.family);
  const coalesced = coalescer<PreparedRow, InsertOutcome, InsertOutcome>({
    limit: (row) => rowsPerStatement(plan.family, row.columns.length),
    one: (row, returning) => sendRows(plan, run, [row], returning),
    send: (rows, returning) => sendRows(plan, run, rows, returning),
    // One outcome per row, as that row's own statement would have returned it (PostgreSQL only: no insertId).
    finish: (rows, returning, out) =>
      returning ? out.rows.map((r) => ({ rows: [r], insertId: 0 })) : rows.map(() => ({ rows: [], insertId: 0 })),
  });
  return (plan.pool = { owner, run, coalesced });
}

/** Row indexes per statement: runs of one column set, each cut to the engine's parameter limit. */
function batchesOf(plan: EntityPlan, prepared: PreparedRow[]): number[][] {
  const batches: number[][] = [];
  for (let start = 0; start < prepared.length; ) {
    const key = prepared[start]!.key;
    let end = start + 1;
    while (end < prepared.length && prepared[end]!.key === key) end++;
    const size = rowsPerStatement(plan.family, prepared[start]!.columns.length);
    const run: number[] = [];
    for (let i = start; i < end; i++) run.push(i);
    batches.push(...chunk(run, size));
    start = end;
  }
  return batches;
}

async function runBatches(
  plan: EntityPlan,
  run: InsertStatement,
  prepared: PreparedRow[],
  batches: number[][],
  returning: boolean,
): Promise<InsertOutcome[]> {
  const outs: InsertOutcome[] = [];
  for (const part of batches) {
    const rows = part.map((i) => prepared[i]!);
    outs.push(await sendRows(plan, run, rows, returning));
  }
  return outs;
}

/** One statement for rows of one column set. */
function sendRows(plan: EntityPlan, run: InsertStatement, rows: PreparedRow[], returning: boolean): Promise<InsertOutcome> {
  const first = rows[0]!;
  let values = first.values;
  if (rows.length > 1) {
    values = [];
    for (const r of rows) for (const v of r.values) values.push(v);
  }
  return run(statement(plan, first, rows.length, returning), values);
}

async function runListeners(listeners: EntityMetadata['beforeInsertListeners'], rows: ObjectLiteral[]): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (const row of rows) {
    for (const l of listeners) {
      if (!l.isAllowed(row)) continue;
      const r = l.execute(row) as unknown;
      if (r instanceof Promise) pending.push(r);
    }
  }
  await Promise.all(pending);
}

/** Merges what the database returned (or we generated) into the caller's object, as insert() does. */
function applyGenerated(
  plan: EntityPlan,
  entity: ObjectLiteral,
  row: PreparedRow,
  returned: Record<string, unknown> | undefined,
  insertId: number,
): void {
  if (returned) {
    for (const c of plan.returning) {
      if (c.databaseName in returned) c.setEntityValue(entity, returned[c.databaseName]);
    }
  }
  if (row.local) for (const [c, v] of row.local) c.setEntityValue(entity, v);
  const inc = plan.increment;
  if (insertId && inc && !row.columns.includes(inc)) inc.setEntityValue(entity, insertId);
}
