/**
 * Runs in a fresh process, as a test file would: from the moment the peer is asked for a database
 * to the answer of its first query, with the driver already imported (the library's own probe,
 * start-probe.ts, times fast-test-db the same way). Prints one JSON line: { firstQueryMs }.
 *
 *   BENCH_PEER=hand: a connection to the admin database, CREATE DATABASE x TEMPLATE t, a connection
 *     to x, SELECT 1 (BENCH_PG_* say where; the database is dropped after the timing).
 *   BENCH_PEER=pglite: new PGlite() (in memory) and SELECT 1; BENCH_PGLITE_SCHEMA=1 also runs the
 *     30-table schema first, as a suite with no template would.
 */
import pg from 'pg';
import { thirtyTableSchema } from './schema30.js';

const peer = process.env.BENCH_PEER;
let firstQueryMs: number;
if (peer === 'hand') {
  const where = {
    host: process.env.BENCH_PG_HOST,
    port: Number(process.env.BENCH_PG_PORT),
    user: process.env.BENCH_PG_USER,
    password: process.env.BENCH_PG_PASSWORD || undefined,
  };
  const template = process.env.BENCH_PG_TEMPLATE!;
  const name = `peers_hand_${process.pid}`;
  const started = performance.now();
  const admin = new pg.Client({ ...where, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const c = new pg.Client({ ...where, database: name });
  await c.connect();
  await c.query('SELECT 1');
  firstQueryMs = performance.now() - started;
  await c.end();
  await admin.query(`DROP DATABASE ${name}`);
  await admin.end();
} else if (peer === 'pglite') {
  const { PGlite } = await import('@electric-sql/pglite');
  const started = performance.now();
  const db = new PGlite();
  if (process.env.BENCH_PGLITE_SCHEMA) await db.exec(thirtyTableSchema());
  await db.query('SELECT 1');
  firstQueryMs = performance.now() - started;
  await db.close();
} else throw new Error(`BENCH_PEER=${peer}: expected hand or pglite`);
process.stdout.write(JSON.stringify({ firstQueryMs }) + '\n');
