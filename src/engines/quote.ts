/**
 * The one place where identifiers and literals become SQL text, for code that holds an engine's
 * name rather than the engine (the public API, the adapters): each engine spells them its own way
 * (postgres/quote.ts, mysql/quote.ts). Every name that comes from options, env vars or the catalog
 * passes through here; nothing is concatenated raw.
 */
import { createHash } from 'node:crypto';
import type { EngineName } from './engine.js';
import { engineFor } from './index.js';

/**
 * The engine a statement is written for, under the name the quoting API has always exported:
 * an engine's name.
 */
export type SqlFamily = EngineName;

export function quoteIdent(family: SqlFamily, name: string): string {
  return engineFor(family).quoting.quoteIdent(name);
}

export function quoteLiteral(family: SqlFamily, value: string): string {
  return engineFor(family).quoting.quoteLiteral(value);
}

/** Qualified name `a.b` with both parts quoted. */
export function quoteQualified(family: SqlFamily, ...parts: string[]): string {
  return parts.map((p) => quoteIdent(family, p)).join('.');
}

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
  const max = engineFor(family).quoting.maxNameBytes;
  if (changed || name.length > max) {
    const digest = createHash('sha256').update(JSON.stringify(given)).digest('hex').slice(0, 8);
    name = `${name.slice(0, max - digest.length - 1)}_${digest}`;
  }
  return name;
}
