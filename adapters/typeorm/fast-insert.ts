/**
 * fastInsert: the rows repository.insert() would write, without what insert() does around them
 * (query builder, parameter rewriting, a QueryRunner per call, a SELECT to reload defaults on MySQL).
 * The statement text is built once per (entity, column set, row count) from TypeORM's metadata and
 * sent prepared; values go through the driver's own preparePersistentValue, as insert() does.
 */
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata.js';
import type { DataSource, DeepPartial, EntityTarget, ObjectLiteral, QueryRunner, Repository } from 'typeorm';
import { FastTestDbError } from '../../src/adapter-kit.js';
import { coalescer } from '../shared/coalesce.js';
import { engineFor } from '../../src/adapter-kit.js';
import { rowsPerStatement } from '../shared/insert-sql.js';
import { executorOn, poolExecutor, poolOf, type Executor, type InsertOutcome } from './driver.js';
import { dataSourceOf } from './orm.js';
import { batchesOf, checkSubscribers, planFor, prepareRow, SINGLE, statement, type EntityPlan, type PreparedRow } from './plan.js';

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
  checkSubscribers(plan, opts.subscribers);
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
    outs = await runBatches(plan, await executorOn(plan.driver, queryRunner), prepared, batches, returning);
  } else if (batches.length > 1) {
    // Several statements: one transaction, so that a failure leaves no part of the rows behind (as insert()'s single statement would not).
    const qr = dataSource.createQueryRunner('master');
    try {
      await qr.startTransaction();
      outs = await runBatches(plan, await executorOn(plan.driver, qr), prepared, batches, returning);
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
      rows.length === 1 && engineFor(plan.driver.engine).inserts.coalesce && opts.coalesce !== false
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

/** The plan's statements on the DataSource's pool, which changes when the DataSource is destroyed and initialised again. */
function poolFor(plan: EntityPlan): NonNullable<EntityPlan['pool']> {
  const owner = poolOf(plan.dataSource);
  const current = plan.pool;
  if (current && current.owner === owner) return current;
  const run = poolExecutor(plan.dataSource, plan.driver);
  const coalesced = coalescer<PreparedRow, InsertOutcome, InsertOutcome>({
    limit: (row) => rowsPerStatement(plan.driver.engine, row.columns.length),
    one: (row, returning) => sendRows(plan, run, [row], returning),
    send: (rows, returning) => sendRows(plan, run, rows, returning),
    // One outcome per row, as that row's own statement would have returned it (coalescing engines report no insertId).
    finish: (rows, returning, out) =>
      returning ? out.rows.map((r) => ({ rows: [r], insertId: 0 })) : rows.map(() => ({ rows: [], insertId: 0 })),
  });
  return (plan.pool = { owner, run, coalesced });
}

async function runBatches(
  plan: EntityPlan,
  run: Executor,
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
function sendRows(plan: EntityPlan, run: Executor, rows: PreparedRow[], returning: boolean): Promise<InsertOutcome> {
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
