import { createHash } from 'node:crypto';
import { FastTestDbError } from '../errors.js';
import type { Engine } from '../types.js';

/**
 * The engine a statement is written for, under the name the quoting API has always exported:
 * the same union as Engine (quoting differs only between these two).
 */
export type SqlFamily = Engine;

/**
 * The one place where identifiers and literals become SQL text. Every name that comes from
 * options, env vars or the catalog passes through here; nothing is concatenated raw.
 */
export function quoteIdent(family: SqlFamily, name: string): string {
  if (name.includes('\0'))
    throw new FastTestDbError('BAD_OPTION', `identifier ${JSON.stringify(name)} contains a NUL byte`, 'use a name without NUL bytes');
  return family === 'postgres' ? `"${name.replace(/"/g, '""')}"` : '`' + name.replace(/`/g, '``') + '`';
}

export function quoteLiteral(family: SqlFamily, value: string): string {
  if (value.includes('\0')) throw new FastTestDbError('BAD_OPTION', `literal contains a NUL byte`, 'remove the NUL byte');
  // PostgreSQL with standard_conforming_strings (default since 9.1) takes backslashes literally;
  // MySQL treats them as escapes unless NO_BACKSLASH_ESCAPES, so double them there.
  return family === 'postgres' ? `'${value.replace(/'/g, "''")}'` : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** Qualified name `a.b` with both parts quoted. */
export function quoteQualified(family: SqlFamily, ...parts: string[]): string {
  return parts.map((p) => quoteIdent(family, p)).join('.');
}

/** PostgreSQL's NAMEDATALEN-1 is 63 bytes; MySQL allows 64 characters for a schema name. */
export const MAX_NAME_BYTES: Record<SqlFamily, number> = { postgres: 63, mysql: 64 };

/**
 * Builds a database name from parts (prefix, run, shard, worker...). Each part is reduced to
 * [a-z0-9] so names stay readable and case-stable on every engine; when a part had to be
 * changed or the result is too long, a hash of the original parts keeps it unique and deterministic.
 */
export function databaseName(family: SqlFamily, parts: Array<string | undefined>): string {
  const given = parts.filter((p): p is string => p !== undefined && p !== '');
  const clean = given.map((p) =>
    p
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '')
      .slice(0, 40),
  );
  let name = clean.filter(Boolean).join('_');
  const changed = clean.some((c, i) => c !== given[i]);
  const max = MAX_NAME_BYTES[family];
  if (changed || name.length > max) {
    const digest = createHash('sha256').update(JSON.stringify(given)).digest('hex').slice(0, 8);
    name = `${name.slice(0, max - digest.length - 1)}_${digest}`;
  }
  return name;
}
