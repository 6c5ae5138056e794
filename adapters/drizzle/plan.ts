/**
 * The INSERT plan of one Drizzle table: which columns an INSERT carries, what `.returning()` or
 * `.$returningId()` reports, and how one row becomes the values `db.insert(table).values(row)`
 * would send. Built once per (dialect, table); fast-insert.ts sends what it plans.
 */
import { FastTestDbError, type EngineName } from '../../src/adapter-kit.js';
import type { Coalesced } from '../shared/coalesce.js';
import { engineFor } from '../../src/adapter-kit.js';
import { insertSql, rowsPerStatement } from '../shared/insert-sql.js';
import type { Executor } from './driver.js';
import { isKind, isTable, tableColumns, tableName, tableSchema, type DrizzleColumn } from './meta.js';

export interface ColumnPlan {
  key: string;
  column: DrizzleColumn;
  dbName: string;
  /** Reported by $returningId, where there is no RETURNING (MySQL). */
  isId: boolean;
}

export interface TablePlan {
  engine: EngineName;
  /** The engine answers INSERT … RETURNING: `.returning()`'s rows; else `.$returningId()`'s keys. */
  returns: boolean;
  /** Single-row calls on a pool may be sent together (Inserts.coalesce). */
  coalesce: boolean;
  /** The instance's dialect, which renders SQL expressions the way db.insert() would. */
  dialect: { sqlToQuery(sql: unknown): { sql: string; params: unknown[] } };
  table: string[];
  insertable: ColumnPlan[];
  /** Every column, in declaration order, as `.returning()` selects them. */
  returning: ColumnPlan[];
  /** Without RETURNING: the keys `$returningId()` reports (primary and AUTO_INCREMENT or $defaultFn). */
  ids: ColumnPlan[];
  /** SQL text by column set and row count. */
  statements: Map<string, string>;
  /** Per pool: single-row calls started in the same tick, sent together. */
  coalesced: WeakMap<Executor, Coalesced<PreparedRow, unknown>>;
}

export interface PreparedRow {
  /** Indexes into `insertable` of the columns this row sends; rows with the same set share a statement. */
  set: string;
  columns: number[];
  values: unknown[];
  /** Aligned with `columns`: SQL text sent in place of a placeholder (sql`now()` from $defaultFn, say). */
  expressions?: Array<string | undefined>;
  /** Without RETURNING: the row as known before the insert (given, $defaultFn, static defaults), keyed by property. */
  known?: Record<string, unknown>;
}

const plans = new WeakMap<object, WeakMap<object, TablePlan>>();

function unsupported(what: string, fix: string): FastTestDbError {
  return new FastTestDbError('UNSUPPORTED', what, fix);
}

export function planFor(db: any, table: object, engine: EngineName): TablePlan {
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
  const { inserts } = engineFor(engine);
  const casing = (dialect as { casing: { getColumnCasing(c: DrizzleColumn): string } }).casing;
  const all: ColumnPlan[] = tableColumns(table).map(([key, column]) => ({
    key,
    column,
    dbName: casing.getColumnCasing(column),
    isId: !inserts.returning && column.primary && (column.autoIncrement === true || column.defaultFn !== undefined),
  }));
  const schema = tableSchema(table);
  plan = {
    engine,
    returns: inserts.returning,
    coalesce: inserts.coalesce,
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
export function prepareRow(plan: TablePlan, row: Record<string, unknown>): PreparedRow {
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
  const known: Record<string, unknown> | undefined = plan.returns ? undefined : {};
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

/** Without RETURNING: what a column the row leaves out holds, when that is known without reading the row back. */
function knownDefault(c: ColumnPlan, known: Record<string, unknown>): void {
  const col = c.column;
  if (col.hasDefault || col.default !== undefined) {
    if (col.default !== undefined && !isKind(col.default, 'SQL')) known[c.key] = col.default;
  } else if (!col.notNull && !col.autoIncrement) known[c.key] = null;
}

export function statement(plan: TablePlan, rows: PreparedRow[], returning: boolean): string {
  const first = rows[0]!;
  const key = `${first.set}|${rows.length}|${returning ? 1 : 0}`;
  let sql = plan.statements.get(key);
  if (!sql) {
    sql = insertSql({
      engine: plan.engine,
      table: plan.table,
      columns: first.columns.map((i) => plan.insertable[i]!.dbName),
      expressions: first.expressions,
      rows: rows.length,
      returning: returning && plan.returns ? plan.returning.map((c) => c.dbName) : undefined,
    });
    plan.statements.set(key, sql);
  }
  return sql;
}

/** Rows of this column set per statement; SQL expressions take no bind parameter. */
export function rowsPerBatch(plan: TablePlan, row: PreparedRow): number {
  return rowsPerStatement(plan.engine, row.columns.length, row.values.length);
}
