/**
 * One cold start of a MariaDB project: gets its database (building the template when the server has
 * none: the 30-table fixture schema, 324 seed rows (12 in each of t01-t27), then SLOW_MS of migrate time), prints the time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '../src/index.js';

const env = process.env;
const schema = readFileSync(join(import.meta.dirname, '../test/fixtures/mysql/schema30.sql'), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('--'));
const seed = Array.from({ length: 27 }, (_, t) => {
  const rows = Array.from({ length: 12 }, (_, r) => `('row ${t}.${r}', ${r})`).join(', ');
  return `INSERT INTO t${String(t + 1).padStart(2, '0')} (name, qty) VALUES ${rows}`;
});
const began = performance.now();
const db = await createTestDatabase({
  engine: 'mysql',
  dataRoot: env.DATA_ROOT,
  worker: '1',
  prefix: 'ftmyw',
  cacheKey: env.CACHE_KEY,
  async migrate(url) {
    const mysql = (await import('mysql2/promise')).default;
    const c = await mysql.createConnection({ uri: url });
    for (const s of [...schema, ...seed]) await c.query(s);
    await c.end();
    await new Promise((r) => setTimeout(r, Number(env.SLOW_MS ?? 0)));
  },
});
const ms = performance.now() - began;
const mysql = (await import('mysql2/promise')).default;
const c = await mysql.createConnection({ uri: db.url });
const [rows] = (await c.query('SELECT COUNT(*) AS n FROM t27')) as any;
await c.end();
process.stdout.write(`${JSON.stringify({ ms, built: db.template.built, t27: Number(rows[0].n) })}\n`);
await db.destroy();
