/** One "test file": gets its database (building a 30-table template if this server has none), runs one query, exits. */
import { createTestDatabase } from '../src/index.js';

const tables = Array.from(
  { length: 30 },
  (_, i) => `CREATE TABLE t${i} (id serial PRIMARY KEY, name text NOT NULL, created timestamptz DEFAULT now(), ref int)`,
);
const db = await createTestDatabase({
  dataRoot: process.env.DATA_ROOT,
  worker: '1',
  cacheKey: 'grace-bench-30-tables',
  async migrate(url) {
    const pg = (await import('pg')).default;
    const client = new pg.Client(url);
    await client.connect();
    for (const sql of tables) await client.query(sql);
    await client.end();
  },
});
process.stdout.write(JSON.stringify({ built: db.template.built, port: db.server.port }) + '\n');
