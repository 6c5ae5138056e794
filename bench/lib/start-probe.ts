/**
 * Runs in a fresh process: how long from calling createTestDatabase to the first query's answer,
 * and how long importing the library (the built package) took before that. Prints one JSON line.
 * BENCH_PROBE_KEY is the schema's cache key, so that "warm" finds the template "cold" built.
 */
import pg from 'pg';
import { fromDist } from './dist.js';
import { thirtyTableSchema } from './schema30.js';

const importStarted = performance.now();
const { createTestDatabase } = await fromDist<typeof import('../../src/index.js')>('index.js');
const importMs = performance.now() - importStarted;
const started = performance.now();
const db = await createTestDatabase({
  cacheKey: process.env.BENCH_PROBE_KEY,
  migrate: async (url) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(thirtyTableSchema());
    await c.end();
  },
});
const c = new pg.Client({ connectionString: db.url }); // the URL carries the server's password
await c.connect();
await c.query('SELECT 1');
const firstQueryMs = performance.now() - started;
await c.end();
await db.destroy();
process.stdout.write(JSON.stringify({ importMs, firstQueryMs, built: db.template.built, stateDir: db.server.stateDir }) + '\n');
