/**
 * fastInsert for Drizzle: the rows `db.insert(table).values(rows)` would write, sent as a cached
 * prepared statement per (table, column set) straight to the driver client, batched within the
 * bind-parameter limit. PostgreSQL returns the inserted rows (like `.returning()`); MySQL, which
 * has no RETURNING, the row as far as it is known without reading it back: the values sent, the
 * static defaults and the generated keys (what `.$returningId()` reports).
 */
import type { InferModelFromColumns } from 'drizzle-orm';
import type { PgDatabase, PgTable } from 'drizzle-orm/pg-core';
import type { GetPrimarySerialOrDefaultKeys, MySqlDatabase, MySqlTable } from 'drizzle-orm/mysql-core';
import { classifyDriverError } from '../../src/adapter-kit.js';
import { coalescer, type Coalesced } from '../shared/coalesce.js';
import { chunk } from '../shared/insert-sql.js';
import { executorFor, type Executor, type RawInsertResult } from './driver.js';
import { planFor, prepareRow, rowsPerBatch, statement, type PreparedRow, type TablePlan } from './plan.js';

type AnyPgDb = PgDatabase<any, any, any>;
type AnyMySqlDb = MySqlDatabase<any, any, any, any>;

/** What `.$returningId()` gives for one row of `T`. */
export type MySqlInsertedId<T extends MySqlTable> = InferModelFromColumns<GetPrimarySerialOrDefaultKeys<T['_']['columns']>>;

/**
 * MySQL's record of one inserted row: the values given (and from $defaultFn/$onUpdate), the static
 * `.default()` values, null for nullable columns without a default, and the generated keys. Columns
 * whose value the server computes (SQL defaults such as now(), generated columns) are absent.
 */
export type MySqlInserted<T extends MySqlTable> = T['$inferInsert'] & MySqlInsertedId<T>;

export interface FastInsertOptions {
  /** false: resolve to nothing (PostgreSQL then sends no RETURNING). */
  returning?: boolean;
  /**
   * PostgreSQL: single-row calls on a pool started in the same tick (Promise.all over a map) go out
   * together as multi-row INSERTs: a batch the server refuses is sent again row by row, so each call
   * settles as alone; what differs: sequence values the refused batch drew are skipped, now() is one
   * value per batch, statement triggers fire once per batch. Default true.
   */
  coalesce?: boolean;
}

/** The pool's queue of single-row calls for this table. */
function coalescedFor(executor: Executor, plan: TablePlan): Coalesced<PreparedRow, unknown> {
  let coalesced = plan.coalesced.get(executor);
  if (!coalesced) {
    coalesced = coalescer<PreparedRow, RawInsertResult, unknown>({
      limit: (row) => rowsPerBatch(plan, row),
      one: (row, returning) => insertOne(executor, plan, row, returning),
      send: (rows, returning) => sendBatch(executor, plan, rows, returning),
      finish: (rows, returning, res) => (returning ? returned(plan, rows, res) : rows.map(() => undefined)),
    });
    plan.coalesced.set(executor, coalesced);
  }
  return coalesced;
}

function mapReturned(plan: TablePlan, raw: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const cols = plan.returning;
  for (let i = 0; i < cols.length; i++) {
    const v = raw[i];
    out[cols[i]!.key] = v === null ? null : cols[i]!.column.mapFromDriverValue(v);
  }
  return out;
}

function mysqlRecords(plan: TablePlan, rows: PreparedRow[], insertId: number): Array<Record<string, unknown>> {
  let next = insertId;
  return rows.map((r) => {
    const out: Record<string, unknown> = { ...r.known };
    let generated = false;
    for (const c of plan.ids) {
      if (c.key in out) continue;
      if (c.column.autoIncrement) {
        // One multi-row INSERT takes consecutive AUTO_INCREMENT values (what $returningId assumes too).
        out[c.key] = next;
        generated = true;
      }
    }
    if (generated) next++;
    return out;
  });
}

/** One statement for rows of one column set. */
function sendBatch(executor: Executor, plan: TablePlan, rows: PreparedRow[], returning: boolean): Promise<RawInsertResult> {
  const sql = statement(plan, rows, returning);
  const params = rows.length === 1 ? rows[0]!.values : rows.flatMap((r) => r.values);
  // A refusal is the library's error with its code, as the other adapters' fastInsert gives it; the driver's is its cause.
  return executor.insert(sql, params, returning && plan.returns).catch((e: unknown) => {
    throw classifyDriverError(e, `fastInsert: ${sql.slice(0, 200)}`);
  });
}

/** One row's statement: its record, or nothing without returning. */
async function insertOne(executor: Executor, plan: TablePlan, row: PreparedRow, returning: boolean): Promise<unknown> {
  const res = await sendBatch(executor, plan, [row], returning);
  return returning ? returned(plan, [row], res)[0] : undefined;
}

/** Per row, its record: `.returning()`'s row where the engine has RETURNING (PostgreSQL), else the known values and generated keys (MySQL). */
function returned(plan: TablePlan, rows: PreparedRow[], res: RawInsertResult): unknown[] {
  if (plan.returns) return res.rows.map((raw) => mapReturned(plan, raw as unknown[]));
  return mysqlRecords(plan, rows, res.insertId);
}

type Returning = FastInsertOptions & { returning?: true };

/**
 * One row in: its record; an array in: the records in input order. PostgreSQL: every column, as
 * `.returning()` gives it. MySQL: see MySqlInserted. `{ returning: false }`: nothing.
 */
export function fastInsert<T extends PgTable>(
  db: AnyPgDb,
  table: T,
  row: T['$inferInsert'],
  options?: Returning,
): Promise<T['$inferSelect']>;
export function fastInsert<T extends PgTable>(
  db: AnyPgDb,
  table: T,
  rows: ReadonlyArray<T['$inferInsert']>,
  options?: Returning,
): Promise<Array<T['$inferSelect']>>;
export function fastInsert<T extends MySqlTable>(
  db: AnyMySqlDb,
  table: T,
  row: T['$inferInsert'],
  options?: Returning,
): Promise<MySqlInserted<T>>;
export function fastInsert<T extends MySqlTable>(
  db: AnyMySqlDb,
  table: T,
  rows: ReadonlyArray<T['$inferInsert']>,
  options?: Returning,
): Promise<Array<MySqlInserted<T>>>;
export function fastInsert<T extends PgTable | MySqlTable>(
  db: AnyPgDb | AnyMySqlDb,
  table: T,
  rows: T['$inferInsert'] | ReadonlyArray<T['$inferInsert']>,
  options: FastInsertOptions & { returning: false },
): Promise<void>;
export async function fastInsert(db: object, table: object, rowOrRows: unknown, options?: FastInsertOptions): Promise<unknown> {
  const known = executorFor(db);
  const executor = 'then' in known ? await known : known;
  const plan = planFor(db, table, executor.engine);
  const returning = options?.returning !== false;
  if (!Array.isArray(rowOrRows)) {
    const row = prepareRow(plan, rowOrRows as Record<string, unknown>);
    // Only on a pool (on one connection the statement belongs to whatever transaction is open
    // there), and only where the engine allows it (see adapters/shared/coalesce.ts).
    if (executor.atomically && plan.coalesce && options?.coalesce !== false) {
      return coalescedFor(executor, plan).add(row.set, returning, row);
    }
    return insertOne(executor, plan, row, returning);
  }

  // Consecutive rows with the same column set share statements, which keeps generated keys in input order.
  const prepared = rowOrRows.map((r) => prepareRow(plan, r as Record<string, unknown>));
  const batches: PreparedRow[][] = [];
  let start = 0;
  while (start < prepared.length) {
    let end = start + 1;
    while (end < prepared.length && prepared[end]!.set === prepared[start]!.set) end++;
    const run = prepared.slice(start, end);
    batches.push(...chunk(run, rowsPerBatch(plan, run[0]!)));
    start = end;
  }
  const runAll = async (r: Executor) => {
    const out: unknown[] = [];
    for (const batch of batches) {
      const res = await sendBatch(r, plan, batch, returning);
      if (returning) for (const x of returned(plan, batch, res)) out.push(x);
    }
    return returning ? out : undefined;
  };
  // Like one db.insert(), all rows or none: several statements share a transaction when the
  // client is a pool (on a single connection they belong to whatever transaction is open there).
  return batches.length > 1 && executor.atomically ? executor.atomically(runAll) : runAll(executor);
}
