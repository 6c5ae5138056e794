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
import { coalescer, type Coalesced } from '../shared/coalesce.js';
import { chunk, insertSql, rowsPerStatement } from '../shared/insert-sql.js';
import { isKind, isTable, tableColumns, tableName, tableSchema, type DrizzleColumn } from './meta.js';
import { runnerFor, type InsertSession, type RawInsertResult } from './runners.js';
import { FastTestDbError, type SqlFamily } from '../../src/adapter-kit.js';

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

interface ColumnPlan {
  key: string;
  column: DrizzleColumn;
  dbName: string;
  /** MySQL: reported by $returningId. */
  isId: boolean;
}

interface TablePlan {
  family: SqlFamily;
  /** The instance's dialect, which renders SQL expressions the way db.insert() would. */
  dialect: { sqlToQuery(sql: unknown): { sql: string; params: unknown[] } };
  table: string[];
  insertable: ColumnPlan[];
  /** PostgreSQL: every column, in declaration order, as `.returning()` selects them. */
  returning: ColumnPlan[];
  /** MySQL: the keys `$returningId()` reports (primary and AUTO_INCREMENT or $defaultFn). */
  ids: ColumnPlan[];
  /** SQL text by column set and row count. */
  statements: Map<string, string>;
  /** Per pool: single-row calls started in the same tick, sent together. */
  coalesced: WeakMap<InsertSession, Coalesced<PreparedRow, unknown>>;
}

interface PreparedRow {
  /** Indexes into `insertable` of the columns this row sends; rows with the same set share a statement. */
  set: string;
  columns: number[];
  values: unknown[];
  /** Aligned with `columns`: SQL text sent in place of a placeholder (sql`now()` from $defaultFn, say). */
  expressions?: Array<string | undefined>;
  /** MySQL: the row as known before the insert (given, $defaultFn, static defaults), keyed by property. */
  known?: Record<string, unknown>;
}

const plans = new WeakMap<object, WeakMap<object, TablePlan>>();

function unsupported(what: string, fix: string): FastTestDbError {
  return new FastTestDbError('UNSUPPORTED', what, fix);
}

function planFor(db: any, table: object, family: SqlFamily): TablePlan {
  // Column names depend on the instance's casing option, so plans are kept per dialect.
  const dialect = db.dialect as object;
  let byTable = plans.get(dialect);
  if (!byTable) plans.set(dialect, (byTable = new WeakMap()));
  let plan = byTable.get(table);
  if (plan) return plan;
  if (!isTable(table))
    throw unsupported(
      'fastInsert needs a Drizzle table (the value pgTable()/mysqlTable() returns)',
      'pass the table object from your schema, not a view, subquery or name',
    );
  const casing = (dialect as { casing: { getColumnCasing(c: DrizzleColumn): string } }).casing;
  const all: ColumnPlan[] = tableColumns(table).map(([key, column]) => ({
    key,
    column,
    dbName: casing.getColumnCasing(column),
    isId: family === 'mysql' && column.primary && (column.autoIncrement === true || column.defaultFn !== undefined),
  }));
  const schema = tableSchema(table);
  plan = {
    family,
    dialect: dialect as TablePlan['dialect'],
    table: schema ? [schema, tableName(table)] : [tableName(table)],
    // Generated (computed) columns take no value, as in Drizzle's own insert.
    insertable: all.filter((c) => !c.column.shouldDisableInsert()),
    returning: all,
    ids: all.filter((c) => c.isId),
    statements: new Map(),
    coalesced: new WeakMap(),
  };
  byTable.set(table, plan);
  return plan;
}

/**
 * An SQL expression without parameters (sql`now()`, sql`gen_random_uuid()`) becomes part of the
 * statement text, as db.insert() would write it. One with parameters cannot be shared across rows.
 */
function inlineSql(plan: TablePlan, c: ColumnPlan, expression: unknown, origin: string): string {
  const q = plan.dialect.sqlToQuery(expression);
  if (q.params.length > 0) {
    throw unsupported(
      `fastInsert cannot send the SQL expression ${origin} column "${c.key}" (${q.sql}): it carries bind parameters`,
      'pass a plain value, or an expression without parameters (sql`now()`), or insert these rows with db.insert(table).values(...)',
    );
  }
  return q.sql;
}

/** Mirrors Drizzle's buildInsertQuery: a missing value takes $defaultFn, else $onUpdate (when no SQL default), else the column default. */
function prepareRow(plan: TablePlan, row: Record<string, unknown>): PreparedRow {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) {
    throw unsupported(
      `fastInsert got ${row === null ? 'null' : Array.isArray(row) ? 'a nested array' : typeof row} where a row object was expected`,
      'pass one row object or an array of row objects',
    );
  }
  const columns: number[] = [];
  const values: unknown[] = [];
  let expressions: Array<string | undefined> | undefined;
  let set = '';
  const known: Record<string, unknown> | undefined = plan.family === 'mysql' ? {} : undefined;
  const { insertable } = plan;
  for (let i = 0; i < insertable.length; i++) {
    const c = insertable[i]!;
    let value = row[c.key];
    if (value === undefined) {
      const col = c.column;
      if (col.defaultFn !== undefined) value = col.defaultFn();
      else if (!col.default && col.onUpdateFn !== undefined) value = col.onUpdateFn();
      else {
        if (known) knownDefault(c, known);
        continue;
      }
    }
    let expression: string | undefined;
    if (value === null) values.push(null);
    else if (isKind(value, 'SQL')) expression = inlineSql(plan, c, value, 'given for');
    else if (isKind(value, 'Param') || isKind(value, 'Placeholder')) {
      throw unsupported(`fastInsert got a placeholder or sql.param() for column "${c.key}"`, 'pass the plain value itself');
    } else {
      const mapped = c.column.mapToDriverValue(value);
      if (isKind(mapped, 'SQL')) expression = inlineSql(plan, c, mapped, 'that toDriver returns for');
      else values.push(mapped);
    }
    if (expression !== undefined) {
      (expressions ??= [])[columns.length] = expression;
      set += `${i}=${JSON.stringify(expression)},`;
    } else {
      set += i + ',';
      if (known) known[c.key] = value;
    }
    columns.push(i);
  }
  if (expressions) expressions.length = columns.length;
  return { set, columns, values, expressions, known };
}

/** MySQL: what a column the row leaves out holds, when that is known without reading the row back. */
function knownDefault(c: ColumnPlan, known: Record<string, unknown>): void {
  const col = c.column;
  if (col.hasDefault || col.default !== undefined) {
    if (col.default !== undefined && !isKind(col.default, 'SQL')) known[c.key] = col.default;
  } else if (!col.notNull && !col.autoIncrement) known[c.key] = null;
}

function statement(plan: TablePlan, rows: PreparedRow[], returning: boolean): string {
  const first = rows[0]!;
  const key = `${first.set}|${rows.length}|${returning ? 1 : 0}`;
  let sql = plan.statements.get(key);
  if (!sql) {
    sql = insertSql({
      family: plan.family,
      table: plan.table,
      columns: first.columns.map((i) => plan.insertable[i]!.dbName),
      expressions: first.expressions,
      rows: rows.length,
      returning: returning && plan.family === 'postgres' ? plan.returning.map((c) => c.dbName) : undefined,
    });
    plan.statements.set(key, sql);
  }
  return sql;
}

/** The pool's queue of single-row calls for this table. */
function coalescedFor(runner: InsertSession, plan: TablePlan): Coalesced<PreparedRow, unknown> {
  let coalesced = plan.coalesced.get(runner);
  if (!coalesced) {
    coalesced = coalescer<PreparedRow, RawInsertResult, unknown>({
      limit: (row) => rowsPerBatch(plan, row),
      one: (row, returning) => insertOne(runner, plan, row, returning),
      send: (rows, returning) => sendBatch(runner, plan, rows, returning),
      finish: (rows, returning, res) => (returning ? returned(plan, rows, res) : rows.map(() => undefined)),
    });
    plan.coalesced.set(runner, coalesced);
  }
  return coalesced;
}

/** Rows of this column set per statement; SQL expressions take no bind parameter. */
function rowsPerBatch(plan: TablePlan, row: PreparedRow): number {
  return rowsPerStatement(plan.family, row.columns.length, row.values.length);
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
function sendBatch(runner: InsertSession, plan: TablePlan, rows: PreparedRow[], returning: boolean): Promise<RawInsertResult> {
  const sql = statement(plan, rows, returning);
  const params = rows.length === 1 ? rows[0]!.values : rows.flatMap((r) => r.values);
  return runner.insert(sql, params, returning && plan.family === 'postgres');
}

/** One row's statement: its record, or nothing without returning. */
async function insertOne(runner: InsertSession, plan: TablePlan, row: PreparedRow, returning: boolean): Promise<unknown> {
  const res = await sendBatch(runner, plan, [row], returning);
  return returning ? returned(plan, [row], res)[0] : undefined;
}

/** Per row, its record: `.returning()`'s row on PostgreSQL, the known values and generated keys on MySQL. */
function returned(plan: TablePlan, rows: PreparedRow[], res: RawInsertResult): unknown[] {
  if (plan.family === 'postgres') return res.rows.map((raw) => mapReturned(plan, raw as unknown[]));
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
  const known = runnerFor(db);
  const runner = 'then' in known ? await known : known;
  const plan = planFor(db, table, runner.family);
  const returning = options?.returning !== false;
  if (!Array.isArray(rowOrRows)) {
    const row = prepareRow(plan, rowOrRows as Record<string, unknown>);
    // Only on a pool (on one connection the statement belongs to whatever transaction is open
    // there), and only on PostgreSQL (see adapters/shared/coalesce.ts).
    if (runner.atomically && runner.family === 'postgres' && options?.coalesce !== false) {
      return coalescedFor(runner, plan).add(row.set, returning, row);
    }
    return insertOne(runner, plan, row, returning);
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
  const runAll = async (r: InsertSession) => {
    const out: unknown[] = [];
    for (const batch of batches) {
      const res = await sendBatch(r, plan, batch, returning);
      if (returning) for (const x of returned(plan, batch, res)) out.push(x);
    }
    return returning ? out : undefined;
  };
  // Like one db.insert(), all rows or none: several statements share a transaction when the
  // client is a pool (on a single connection they belong to whatever transaction is open there).
  return batches.length > 1 && runner.atomically ? runner.atomically(runAll) : runAll(runner);
}
