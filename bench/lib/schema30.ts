/** The 30-table PostgreSQL schema the core's clone and reset figures are measured on (FK chains of three). */
import { quoteIdent } from '../../src/engines/quote.js';

export const PG_TABLES = Array.from({ length: 30 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`);

export function thirtyTableSchema(): string {
  const id = (n: string) => quoteIdent('postgres', n);
  return PG_TABLES.map((t, i) => {
    const parent = i % 3 === 0 ? undefined : PG_TABLES[i - 1]!;
    return (
      `CREATE TABLE ${id(t)} (id bigserial PRIMARY KEY, parent_id bigint${parent ? ` REFERENCES ${id(parent)}(id) ON DELETE CASCADE` : ''}, ` +
      `name text NOT NULL DEFAULT '', qty int NOT NULL DEFAULT 0, price numeric(12,2), created_at timestamptz NOT NULL DEFAULT now());` +
      `CREATE INDEX ON ${id(t)} (name);`
    );
  }).join('\n');
}
