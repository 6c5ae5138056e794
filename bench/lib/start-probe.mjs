/**
 * Runs in a fresh process, as a test file would: from the moment the peer is asked for a database
 * to the answer of its first query (firstQueryMs), and how long importing the library and the
 * driver took before that (importMs). Prints one JSON line.
 *
 * Plain JavaScript, so that it runs with no module loader: a Vitest worker loads the package from
 * node_modules with Node's own import, and tsx's hooks would make every module the library loads
 * on its first call cost more (the section's tsx row) while the hand probe loads none after its clock starts.
 * The bench runs it under tsx as well, as its own row (peers.ts).
 *
 * BENCH_PROBE_KEY is the schema's cache key, so that "warm" finds the template "cold" built, and
 * BENCH_SCHEMA the SQL that builds it.
 */
const importStarted = performance.now();
const [{ default: pg }, { createTestDatabase }] = await Promise.all([import('pg'), import('../../dist/index.js')]);
const importMs = performance.now() - importStarted;
const started = performance.now();
const db = await createTestDatabase({
  cacheKey: process.env.BENCH_PROBE_KEY,
  migrate: async (url) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(process.env.BENCH_SCHEMA);
    await c.end();
  },
});
const c = new pg.Client({ connectionString: db.url }); // the URL carries the server's password
await c.connect();
await c.query('SELECT 1');
const firstQueryMs = performance.now() - started;
await c.end();
await db.destroy();
process.stdout.write(`${JSON.stringify({ importMs, firstQueryMs, built: db.template.built, stateDir: db.server.stateDir })}\n`);
