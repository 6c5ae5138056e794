/**
 * The INSERT text every adapter's fastInsert sends, built once per (table, column set, row count)
 * and cached, so that the driver can reuse it as a prepared statement.
 */
import { createHash } from 'node:crypto';
import { quoteIdent, quoteQualified, type SqlFamily } from '../../src/adapter-kit.js';

/** Bind parameters one statement may carry: both PostgreSQL and MySQL count them in 16 bits. */
export const MAX_BIND_PARAMS = 65_535;

export interface InsertShape {
  family: SqlFamily;
  /** Table, optionally with its schema (PostgreSQL) or database (MySQL) first. */
  table: string[];
  columns: string[];
  rows: number;
  /** PostgreSQL: columns to return (RETURNING). Ignored on MySQL, which reports insertId. */
  returning?: string[];
  /**
   * Per column (same order as `columns`): SQL text written in place of that column's placeholder
   * in every row, e.g. `now()`. Such columns take no bind parameter. Undefined entries bind as usual.
   */
  expressions?: Array<string | undefined>;
}

/**
 * Most rows one statement may carry: as many as fit the bind-parameter limit, at most 1,000; one
 * for a row without columns on PostgreSQL, which fastInsert sends as DEFAULT VALUES.
 */
export function rowsPerStatement(family: SqlFamily, columnCount: number, paramsPerRow = columnCount): number {
  if (columnCount === 0 && family === 'postgres') return 1;
  return Math.max(1, Math.min(1000, Math.floor(MAX_BIND_PARAMS / Math.max(1, paramsPerRow))));
}

/** Splits rows into batches that each fit one statement. */
export function chunk<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

const cache = new Map<string, string>();

/** With no columns every value is the default: `DEFAULT VALUES` for one row, `(DEFAULT), ...` for several. */
export function insertSql(shape: InsertShape): string {
  const key = JSON.stringify(shape);
  let sql = cache.get(key);
  if (sql) return sql;
  const { family, columns, rows } = shape;
  const cols = columns.map((c) => quoteIdent(family, c)).join(', ');
  let n = 0;
  const tuple = () => `(${columns.map((_, i) => shape.expressions?.[i] ?? (family === 'postgres' ? `$${++n}` : '?')).join(', ')})`;
  const values =
    columns.length === 0
      ? family === 'postgres'
        ? rows === 1
          ? ' DEFAULT VALUES'
          : ' VALUES ' + Array.from({ length: rows }, () => '(DEFAULT)').join(', ')
        : ' () VALUES ' + Array.from({ length: rows }, () => '()').join(', ')
      : ` (${cols}) VALUES ` + Array.from({ length: rows }, tuple).join(', ');
  const returning =
    family === 'postgres' && shape.returning?.length ? ` RETURNING ${shape.returning.map((c) => quoteIdent(family, c)).join(', ')}` : '';
  sql = `INSERT INTO ${quoteQualified(family, ...shape.table)}${values}${returning}`;
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
