/**
 * The core's own figures (issue #2): cold and warm start to the first query, clone time on a
 * 30-table schema by strategy, reset time with 3 of 30 tables dirty, and per-row insert cost on a
 * durable server against the tuned one. Every server here is the bench's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { engineFor } from '../src/engines/index.js';
import { newMarker } from '../src/engines/marker.js';
import { createTestDatabase, prepareTemplate } from '../src/index.js';
import { cloneInto } from '../src/core/clone.js';
import { quoteIdent } from '../src/engines/quote.js';
import { sleep } from '../src/util/sleep.js';
import { stopOwnedServer } from '../src/server/registry.js';
import { resolveServer } from '../src/server/providers/index.js';
import type { ServerInfo } from '../src/types.js';
import { benchDirs } from './lib/dirs.js';
import { startBenchPostgres } from './lib/postgres.js';
import { thirtyTableSchema } from './lib/schema30.js';
import { waitNoProcesses } from '../test/runners/harness.js';
import { type ProbeResult, runProbe } from './lib/probe.js';
import { row, withSpeedups, type Row, type Section } from './lib/stats.js';

export interface CoreOptions {
  repeats: number;
  /** Samples per repeat for the millisecond figures (clone, reset). */
  samples: number;
  /** Rows per insert sample. */
  insertRows: number;
  log: (line: string) => void;
}

const probe = (env: Record<string, string>) => runProbe('start-probe.mjs', env);

const migrate30 = async (url: string) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(thirtyTableSchema());
  await c.end();
};

async function insertUs(
  server: { host: string; port: number; user: string; password: string },
  database: string,
  rows: number,
  unlogged: boolean,
): Promise<number> {
  const c = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database });
  await c.connect();
  try {
    await c.query('DROP TABLE IF EXISTS bench_insert');
    await c.query(
      `CREATE ${unlogged ? 'UNLOGGED ' : ''}TABLE bench_insert (id serial PRIMARY KEY, amount int NOT NULL, description varchar(64) NOT NULL DEFAULT 'bench')`,
    );
    const q = { name: 'bench_insert_row', text: 'INSERT INTO bench_insert (amount) VALUES ($1) RETURNING id' };
    for (let i = 0; i < 200; i++) await c.query({ ...q, values: [i] });
    const t = performance.now();
    for (let i = 0; i < rows; i++) await c.query({ ...q, values: [i] });
    return ((performance.now() - t) * 1000) / rows;
  } finally {
    await c.query('DROP TABLE IF EXISTS bench_insert').catch(() => undefined);
    await c.end();
  }
}

/**
 * recreate() on a worker's database, one test file's worth of use between samples (a table
 * written, the database connected to), alternating with the plain drop-then-clone on a second
 * database: the time a runner's per-file isolation waits for before the next file starts.
 */
async function recreateMs(server: ServerInfo, cacheKey: string, samples: number): Promise<{ recreate: number[]; dropClone: number[] }> {
  const db = await createTestDatabase({ cacheKey, migrate: migrate30, worker: 'benchrecreate' });
  const plain = await createTestDatabase({ cacheKey, migrate: migrate30, worker: 'benchdropclone' });
  const roles = await engineFor('postgres').load({});
  const admin = await roles.connector.connect(server);
  const use = async (name: string) => {
    const c = new pg.Client({ host: server.host, port: server.port, user: server.user, password: server.password, database: name });
    await c.connect();
    await c.query(`INSERT INTO t01 (name) VALUES ('a')`);
    await c.end();
  };
  const out = { recreate: [] as number[], dropClone: [] as number[] };
  try {
    for (let i = 0; i < samples; i++) {
      await use(db.name);
      // What a test file does between two recreates gives background work its time.
      await sleep(100);
      let t = performance.now();
      await db.recreate();
      out.recreate.push(performance.now() - t);
      await use(plain.name);
      t = performance.now();
      await cloneInto(admin, { roles, server, template: plain.template.name, name: plain.name, force: true });
      out.dropClone.push(performance.now() - t);
    }
  } finally {
    await admin.close();
    await db.destroy({ force: true });
    await plain.destroy({ force: true });
  }
  return out;
}

export async function runCore(opts: CoreOptions): Promise<{ sections: Section[]; version?: string }> {
  const dirs = benchDirs();
  const rows: Row[] = [];
  const key = `bench-core-${process.pid}`;

  // Cold: a fresh process and no server running, with the caches a project has after one earlier
  // run (its own cache dir, primed by a run that is not measured): initdb's copy and a warm copy.
  // "cold" asks for a template that copy lacks (the migrations changed); "restart" for the one it
  // holds (nothing changed: migrate runs 0 times).
  const cacheDir = mkdtempSync(join(dirs.disk, 'cache-'));
  const coldRun = async (root: string, probeKey: string): Promise<ProbeResult> => {
    const p = await probe({ FAST_TEST_DB_DATA_ROOT: root, FAST_TEST_DB_CACHE_DIR: cacheDir, BENCH_PROBE_KEY: probeKey });
    if (p.stateDir) await stopOwnedServer(p.stateDir);
    // The warm copy is written by a process of its own after the stop; the next start must see it.
    const left = await waitNoProcesses(root, 30_000);
    if (left.length) throw new Error(`processes still run under ${root} 30 s after the stop: ${left.join('; ')}`);
    return p;
  };
  const cold: number[] = [];
  const restart: number[] = [];
  const imports: number[] = [];
  let coldError: string | undefined;
  try {
    await coldRun(join(dirs.shm, 'cold-prime'), `${key}-kept`);
    for (let i = 0; i < opts.repeats; i++) {
      const p = await coldRun(join(dirs.shm, `cold-${i}`), `${key}-cold-${i}`);
      cold.push(p.firstQueryMs);
      imports.push(p.importMs);
      const r = await coldRun(join(dirs.shm, `restart-${i}`), `${key}-kept`);
      if (r.built) throw new Error('the restart built its template: the warm copy was not used');
      restart.push(r.firstQueryMs);
    }
  } catch (e) {
    coldError = (e as Error).message;
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const error = coldError ? { error: coldError } : {};
  rows.push(row('cold', 'cold start to first query, migrations changed (no server running)', cold, { note: 'target <= 1 s', ...error }));
  rows.push(row('restart', 'cold start to first query, nothing changed (the warm copy)', restart, { note: 'target < 1 s', ...error }));

  // Warm: the server stays up (this process holds it) and the template exists; a new process joins.
  const warmRoot = join(dirs.shm, 'warm');
  const server: ServerInfo = await resolveServer({ dataRoot: warmRoot, server: 'embedded' }, 'postgres');
  let version: string | undefined = server.version;
  try {
    await probe({ FAST_TEST_DB_DATA_ROOT: warmRoot, BENCH_PROBE_KEY: `${key}-warm` });
    const warm: number[] = [];
    for (let i = 0; i < Math.max(opts.repeats, 3); i++)
      warm.push((await probe({ FAST_TEST_DB_DATA_ROOT: warmRoot, BENCH_PROBE_KEY: `${key}-warm` })).firstQueryMs);
    rows.push(row('warm', 'warm start to first query (server up, template cached)', warm, { note: 'target <= 150 ms' }));
    rows.push(row('import', 'importing the library and pg (part of neither figure)', imports));
    opts.log(
      `  core: cold ${cold.map((x) => x.toFixed(0)).join('/')} ms, restart ${restart.map((x) => x.toFixed(0)).join('/')} ms, warm ${warm.map((x) => x.toFixed(0)).join('/')} ms`,
    );

    // Clone: FILE_COPY against WAL_LOG, alternating, on the same 30-table template.
    const prevDataRoot = process.env.FAST_TEST_DB_DATA_ROOT;
    process.env.FAST_TEST_DB_DATA_ROOT = warmRoot;
    const prepared = await prepareTemplate({ cacheKey: `${key}-clone`, migrate: migrate30 });
    const strategies = {
      file_copy: await engineFor('postgres').load({ cloneStrategy: 'file_copy' }),
      wal_log: await engineFor('postgres').load({ cloneStrategy: 'wal_log' }),
    };
    const admin = await strategies.file_copy.connector.connect(server);
    const clone = { file_copy: [] as number[], wal_log: [] as number[] };
    try {
      for (let i = 0; i < opts.repeats * opts.samples; i++) {
        for (const strategy of ['file_copy', 'wal_log'] as const) {
          const name = `ftdb_bench_clone_${process.pid}`;
          const t = performance.now();
          await strategies[strategy].templates.clone(admin, server, prepared.template.name, name, newMarker('database', {}));
          clone[strategy].push(performance.now() - t);
          await admin.query(`DROP DATABASE ${quoteIdent('postgres', name)}`);
        }
      }
    } finally {
      await admin.close();
    }
    rows.push(row('clone-file-copy', 'clone 30 tables, STRATEGY FILE_COPY (default)', clone.file_copy, { note: 'target <= 15 ms' }));
    rows.push(row('clone-wal-log', 'clone 30 tables, STRATEGY WAL_LOG', clone.wal_log));

    // Reset: 3 of the 30 tables hold a row; reset() empties them and restarts their sequences.
    const db = await createTestDatabase({ cacheKey: `${key}-clone`, migrate: migrate30, worker: 'benchreset' });
    const c = new pg.Client({ connectionString: db.url }); // the URL carries the server's password
    await c.connect();
    const reset: number[] = [];
    const resetServer: number[] = [];
    try {
      await db.reset();
      for (let i = 0; i < opts.repeats * opts.samples; i++) {
        await c.query(
          `INSERT INTO t01 (name) VALUES ('a'); INSERT INTO t02 (parent_id, name) SELECT id, 'b' FROM t01 LIMIT 1; INSERT INTO t10 (name) VALUES ('c')`,
        );
        const t = performance.now();
        const report = await db.reset();
        reset.push(performance.now() - t);
        resetServer.push(report.ms);
        if (report.emptied.length !== 3) throw new Error(`reset emptied ${report.emptied.length} tables, expected 3`);
      }
    } finally {
      await c.end();
      await db.destroy({ force: true });
    }
    rows.push(row('reset', 'reset(), 30 tables, 3 dirty', reset, { note: 'target <= 3 ms' }));

    const recreate = await recreateMs(server, `${key}-clone`, opts.repeats * opts.samples);
    rows.push(row('recreate-drop-clone', 'drop, then clone (30 tables): what recreate() did', recreate.dropClone));
    rows.push(row('recreate', 'recreate(), 30 tables', recreate.recreate, { note: 'target <= 15 ms' }));
    if (prevDataRoot === undefined) delete process.env.FAST_TEST_DB_DATA_ROOT;
    else process.env.FAST_TEST_DB_DATA_ROOT = prevDataRoot;
    opts.log(
      `  core: clone file_copy ${median(clone.file_copy)} ms, wal_log ${median(clone.wal_log)} ms, reset ${median(reset)} ms, recreate ${median(recreate.recreate)} ms (drop+clone ${median(recreate.dropClone)} ms)`,
    );
  } finally {
    if (server.stateDir) await stopOwnedServer(server.stateDir);
  }

  // Per-row insert: the pg driver, prepared, one row per round trip, durable on disk against tuned.
  const durable = await startBenchPostgres('disk');
  const tuned = await resolveServer({ dataRoot: join(dirs.shm, 'insert'), server: 'embedded' }, 'postgres');
  const ins = { durable: [] as number[], durableUnlogged: [] as number[], tuned: [] as number[], tunedUnlogged: [] as number[] };
  try {
    for (let i = 0; i < opts.repeats; i++) {
      ins.durable.push(await insertUs(durable.info, 'postgres', opts.insertRows, false));
      ins.durableUnlogged.push(await insertUs(durable.info, 'postgres', opts.insertRows, true));
      ins.tuned.push(await insertUs(tuned, 'postgres', opts.insertRows, false));
      ins.tunedUnlogged.push(await insertUs(tuned, 'postgres', opts.insertRows, true));
    }
  } finally {
    await durable.stop();
    if (tuned.stateDir) await stopOwnedServer(tuned.stateDir);
  }
  version ??= tuned.version;
  const inserts: Section = {
    id: 'core-insert',
    title: 'Per-row INSERT, pg driver, prepared (microseconds per row)',
    unit: 'us',
    baseline: 'durable',
    rows: [
      row('durable', 'durable PostgreSQL, data on disk', ins.durable),
      row('durable-unlogged', 'durable, UNLOGGED table', ins.durableUnlogged),
      row('tuned', "fast-test-db's tuned server (tmpfs, durability off)", ins.tuned),
      row('tuned-unlogged', 'tuned, UNLOGGED table', ins.tunedUnlogged),
    ],
    notes: [`${opts.insertRows} sequential single-row INSERT ... RETURNING id per sample, after 200 warm-up rows, over TCP on 127.0.0.1.`],
  };
  const core: Section = {
    id: 'core',
    title: 'Core figures (milliseconds)',
    unit: 'ms',
    rows,
    notes: [
      "Cold and warm starts run in a new process each time and stop at the answer to SELECT 1 on the worker's own database. Both cold rows start with no server running and the caches one earlier run of the project leaves (initdb's copy, a warm copy); the first then builds its template (30 tables), the second finds it in the warm copy.",
    ],
  };
  return { sections: [core, withSpeedups(inserts)], version };
}

function median(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return (s[s.length >> 1] ?? NaN).toFixed(1);
}
