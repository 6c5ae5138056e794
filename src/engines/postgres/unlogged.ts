/** PostgreSQL: a template's tables made UNLOGGED, so that clones and tests write no WAL for them. */
import type { PgClient } from './client.js';
import { id } from './quote.js';

/**
 * Table conversion to UNLOGGED. A permanent table may not reference an unlogged one, so tables are
 * converted referencing-first. Foreign keys inside a cycle are dropped, the cycle converted, and the
 * keys added back (they validate again). Partitioned parents hold no data and cannot change
 * persistence: their partitions are converted, and any table a partitioned table references stays
 * permanent (as do tables those reference), since a permanent table cannot point at an unlogged one.
 */
export async function convertToUnlogged(db: PgClient): Promise<string[]> {
  const tables = await db.query<{ oid: number; name: string; kind: string }>(`
    SELECT c.oid::int AS oid, c.oid::regclass::text AS name, c.relkind AS kind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`);
  const fks = await db.query<{ name: string; from: number; to: number; def: string }>(`
    SELECT conname AS name, conrelid::int AS "from", confrelid::int AS "to", pg_get_constraintdef(oid) AS def
    FROM pg_constraint WHERE contype = 'f' AND conparentid = 0`);
  const byOid = new Map(tables.map((t) => [t.oid, t]));
  // Tables that must stay permanent: partitioned parents and everything they reach through FKs.
  const stay = new Set(tables.filter((t) => t.kind === 'p').map((t) => t.oid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const fk of fks) if (stay.has(fk.from) && byOid.has(fk.to) && !stay.has(fk.to)) stay.add(fk.to), (grew = true);
  }
  const convert = new Set(tables.filter((t) => !stay.has(t.oid)).map((t) => t.oid));
  const edges = fks.filter((fk) => fk.from !== fk.to && convert.has(fk.from) && convert.has(fk.to));
  // Kahn's algorithm: a table goes once nothing still permanent references it.
  const order: number[] = [];
  const referencedBy = new Map<number, number>();
  for (const e of edges) referencedBy.set(e.to, (referencedBy.get(e.to) ?? 0) + 1);
  const ready = [...convert].filter((t) => !referencedBy.get(t));
  const done = new Set<number>();
  while (ready.length) {
    const t = ready.shift()!;
    order.push(t);
    done.add(t);
    for (const e of edges)
      if (e.from === t) {
        const left = referencedBy.get(e.to)! - 1;
        referencedBy.set(e.to, left);
        if (left === 0) ready.push(e.to);
      }
  }
  const cyclic = [...convert].filter((t) => !done.has(t));
  const cycleKeys = edges.filter((e) => cyclic.includes(e.from) && cyclic.includes(e.to));
  const name = (oid: number) => byOid.get(oid)!.name; // regclass text is already quoted where needed
  const sql: string[] = [];
  for (const k of cycleKeys) sql.push(`ALTER TABLE ${name(k.from)} DROP CONSTRAINT ${id(k.name)}`);
  for (const t of [...order, ...cyclic]) sql.push(`ALTER TABLE ${name(t)} SET UNLOGGED`);
  for (const k of cycleKeys) sql.push(`ALTER TABLE ${name(k.from)} ADD CONSTRAINT ${id(k.name)} ${k.def}`);
  if (sql.length) await db.query(`BEGIN; ${sql.join('; ')}; COMMIT`);
  return [...order, ...cyclic].map(name);
}
