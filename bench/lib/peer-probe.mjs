/**
 * Runs in a fresh process, as a test file would: from the moment the peer is asked for a database
 * to the answer of its first query (firstQueryMs), and how long importing the driver took before
 * that (importMs). start-probe.mjs times fast-test-db the same way, and says why both are plain
 * JavaScript. Prints one JSON line.
 *
 *   BENCH_PEER=hand: a connection to the admin database, CREATE DATABASE x TEMPLATE t, a connection
 *     to x, SELECT 1 (BENCH_PG_* say where; the database is dropped after the timing).
 *   BENCH_PEER=pglite: new PGlite() (in memory) and SELECT 1; BENCH_PGLITE_SCHEMA=1 also runs
 *     BENCH_SCHEMA first, as a suite with no template would.
 */
const peer = process.env.BENCH_PEER;
const importStarted = performance.now();
let importMs;
let firstQueryMs;
if (peer === 'hand') {
  const { default: pg } = await import('pg');
  importMs = performance.now() - importStarted;
  const where = {
    host: process.env.BENCH_PG_HOST,
    port: Number(process.env.BENCH_PG_PORT),
    user: process.env.BENCH_PG_USER,
    password: process.env.BENCH_PG_PASSWORD || undefined,
  };
  const template = process.env.BENCH_PG_TEMPLATE;
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
  importMs = performance.now() - importStarted;
  const started = performance.now();
  const db = new PGlite();
  if (process.env.BENCH_PGLITE_SCHEMA) await db.exec(process.env.BENCH_SCHEMA);
  await db.query('SELECT 1');
  firstQueryMs = performance.now() - started;
  await db.close();
} else throw new Error(`BENCH_PEER=${peer}: expected hand or pglite`);
process.stdout.write(`${JSON.stringify({ importMs, firstQueryMs })}\n`);
