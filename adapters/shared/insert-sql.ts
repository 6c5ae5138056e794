/**
 * The INSERT text every adapter's fastInsert sends, built once per (table, column set, row count)
 * and cached, so that the driver can reuse it as a prepared statement.
 */
import { createHash } from 'node:crypto';
import type { EngineName, Flavor } from '../../src/adapter-kit.js';
import { engineFor } from '../../src/adapter-kit.js';

/** Bind parameters one statement may carry: both PostgreSQL and MySQL count them in 16 bits. */
export const MAX_BIND_PARAMS = 65_535;

export interface InsertShape {
  engine: EngineName;
  /** Table, optionally with its schema (PostgreSQL) or database (MySQL) first. */
  table: string[];
  columns: string[];
  rows: number;
  /** Columns to return (RETURNING); left out where the server does not answer with them (MySQL reports insertId). */
  returning?: string[];
  /** The server's flavor, when it answers RETURNING where other servers of its engine do not (MariaDB). */
  flavor?: Flavor;
  /**
   * Per column (same order as `columns`): SQL text written in place of that column's placeholder
   * in every row, e.g. `now()`. Such columns take no bind parameter. Undefined entries bind as usual.
   */
  expressions?: Array<string | undefined>;
}

/**
 * Most rows one statement may carry: as many as fit the bind-parameter limit, at most 1,000; for
 * rows without columns, as many as the engine's default-rows form takes (one DEFAULT VALUES on PostgreSQL).
 */
export function rowsPerStatement(engine: EngineName, columnCount: number, paramsPerRow = columnCount): number {
  if (columnCount === 0) return Math.min(1000, engineFor(engine).inserts.defaultRowsPerStatement);
  return Math.max(1, Math.min(1000, Math.floor(MAX_BIND_PARAMS / Math.max(1, paramsPerRow))));
}

/** Splits rows into batches that each fit one statement. */
export function chunk<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

const cache = new Map<string, string>();

/** With no columns every value is the default, written as the engine writes default rows. */
export function insertSql(shape: InsertShape): string {
  const key = JSON.stringify(shape);
  let sql = cache.get(key);
  if (sql) return sql;
  const { columns, rows } = shape;
  const { inserts, quoting, flavors } = engineFor(shape.engine);
  const { quoteIdent } = quoting;
  const cols = columns.map(quoteIdent).join(', ');
  let n = 0;
  const tuple = () => `(${columns.map((_, i) => shape.expressions?.[i] ?? inserts.param(++n)).join(', ')})`;
  const values = columns.length === 0 ? inserts.defaultRows(rows) : ` (${cols}) VALUES ` + Array.from({ length: rows }, tuple).join(', ');
  const returns = inserts.returningOn(shape.flavor ?? flavors[0]!);
  const returning = returns && shape.returning?.length ? ` RETURNING ${shape.returning.map(quoteIdent).join(', ')}` : '';
  sql = `INSERT INTO ${shape.table.map(quoteIdent).join('.')}${values}${returning}`;
  if (cache.size > 5000) cache.clear();
  cache.set(key, sql);
  return sql;
}

const names = new Map<string, string>();

/**
 * The name node-postgres prepares `sql` under. pg refuses one name for two texts, so the name is
 * the text's hash: the same statement reuses its prepared plan on every connection.
 */
export function preparedName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = 'ftdb_' + createHash('sha1').update(sql).digest('hex').slice(0, 24);
    if (names.size > 5000) names.clear();
    names.set(sql, name);
  }
  return name;
}
