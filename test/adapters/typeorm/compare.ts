/** Reads a table back in a form two correct inserts agree on, to compare insert() and fastInsert. */
import type { DataSource, ObjectLiteral } from 'typeorm';
import { quoteIdent } from '../../../src/engines/quote.js';

function normalize(v: unknown): unknown {
  if (v instanceof Date) return `date:${v.toISOString()}`;
  if (Buffer.isBuffer(v)) return `hex:${v.toString('hex')}`;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x)]));
  return v;
}

/** Rows as sorted canonical JSON; `loose` columns only have to be non-null. */
export async function dumpTable(ds: DataSource, table: string, loose: string[]): Promise<string[]> {
  const family = ds.options.type === 'postgres' ? 'postgres' : 'mysql';
  const rows: ObjectLiteral[] = await ds.query(`SELECT * FROM ${quoteIdent(family, table)}`);
  return rows
    .map((r) => {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(r).sort()) out[k] = loose.includes(k) ? (r[k] == null ? null : '<set>') : normalize(r[k]);
      return JSON.stringify(out);
    })
    .sort();
}
