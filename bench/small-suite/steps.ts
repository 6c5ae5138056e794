/**
 * The small suite: about 50 Vitest files (forks, 2 workers) that each start a small app module (a
 * price catalog built at start-up, two services over a pool) and run a handful of queries. Little
 * database work: what most suites look like, and where a fixed cost per run shows.
 *
 * Three ways to run it, each a whole Vitest run timed from spawn to exit, plus the time from spawn
 * to the first test's start (the earliest wall clock any file's first test wrote down):
 * - a default PostgreSQL (on disk, default settings) started before the timed run; the suite's own
 *   global setup makes one database per worker with the schema, and every file TRUNCATEs its tables;
 * - fast-test-db's first run: a fresh data root and no initdb cache, so no server and no template;
 * - fast-test-db's second run: the first run stopped its server on exit (the keeper's grace period
 *   only bridges test processes of one run) and saved its data directory, so the server starts
 *   again from that warm copy, with the template in it;
 * - a third run with FAST_TEST_DB_REUSE=1 after the second also ran with it: the server and the
 *   template are still up.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WORKER_ENV_VARS } from '../../src/options/workers.js';
import { benchDirs } from '../lib/dirs.js';
import { startBenchPostgres, type BenchPostgres } from '../lib/postgres.js';
import { row, withSpeedups, type Section } from '../lib/stats.js';
import { stopOwnedServer } from '../../src/server/registry.js';
import { timedRun } from '../lib/timed-run.js';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const GENERATED = join(HERE, '.generated');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

export interface SmallSuiteOptions {
  files: number;
  workers: number;
  repeats: number;
  log: (line: string) => void;
}

interface RunResult {
  ms: number;
  firstTestMs: number;
  /** The library's banner said the template was built in this run. */
  templateBuilt?: boolean;
}

function writeSuite(files: number): void {
  rmSync(GENERATED, { recursive: true, force: true });
  mkdirSync(GENERATED, { recursive: true });
  for (let i = 0; i < files; i++) {
    writeFileSync(
      join(GENERATED, `f${String(i).padStart(2, '0')}.test.ts`),
      `import { afterAll, expect, test } from 'vitest';
import { createApp } from '../app/index.js';
import { markFirstTest } from '../mark.js';

const app = createApp();
afterAll(() => app.close());

test('places an order and reads it back', async () => {
  markFirstTest();
  const customer = await app.customers.create('customer ${i}');
  const order = await app.orders.place(customer.id, ['sku-${i}', 'sku-${i + 1}', 'sku-${i + 2}']);
  expect(await app.orders.get(order.id)).toEqual({ id: order.id, total: order.total, lines: 3 });
});

test('counts the orders of a customer', async () => {
  const customer = await app.customers.create('other ${i}');
  await app.orders.place(customer.id, ['sku-1']);
  expect(await app.orders.countFor(customer.id)).toBe(1);
});
`,
    );
  }
}

async function runVitest(config: string, env: Record<string, string>, marks: string): Promise<RunResult> {
  rmSync(marks, { recursive: true, force: true });
  const base = { ...process.env };
  for (const k of WORKER_ENV_VARS) delete base[k];
  for (const k of Object.keys(base))
    if (/^(VITEST|FAST_TEST_DB_|TEST_DATABASE_URL$|APP_DATABASE_URL$|NODE_OPTIONS$)/.test(k)) delete base[k];
  const started = Date.now();
  const {
    code,
    output: out,
    ms,
  } = await timedRun(process.execPath, [VITEST, 'run', '--config', join(HERE, config)], {
    cwd: HERE,
    env: { ...base, ...env, BENCH_SMALL_MARKS: marks, FORCE_COLOR: '0' },
  });
  if (code !== 0) throw new Error(`vitest ${config} exited with ${code}:\n${out.split('\n').slice(-30).join('\n')}`);
  const firsts = readdirSync(marks).map((n) => Number(readFileSync(join(marks, n), 'utf8')));
  const banner = /fast-test-db: .*template \S+( built)?/.exec(out);
  if (process.env.BENCH_SMALL_DEBUG) process.stderr.write(out);
  return { ms, firstTestMs: Math.min(...firsts) - started, ...(banner ? { templateBuilt: Boolean(banner[1]) } : {}) };
}

/** Stops the servers the runs left under `dataRoot` (the keeper would after its grace period) and removes it. */
async function removeDataRoot(dataRoot: string): Promise<void> {
  for (const user of existsSync(dataRoot) ? readdirSync(dataRoot) : [])
    for (const srv of readdirSync(join(dataRoot, user))) await stopOwnedServer(join(dataRoot, user, srv)).catch(() => undefined);
  rmSync(dataRoot, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

export async function runSmallSuite(opts: SmallSuiteOptions): Promise<{ sections: Section[]; servers: Record<string, unknown> }> {
  const dirs = benchDirs();
  const marks = join(dirs.shm, 'small-marks');
  const KEYS = ['plain', 'cold', 'second', 'reuse'] as const;
  const whole: Record<string, number[]> = Object.fromEntries(KEYS.map((k) => [k, []]));
  const first: Record<string, number[]> = Object.fromEntries(KEYS.map((k) => [k, []]));
  const built: Record<string, boolean[]> = { cold: [], second: [], reuse: [] };
  // The library keeps its initdb cache under the project's node_modules: a first run has none.
  const initdbCache = join(HERE, 'node_modules');
  writeSuite(opts.files);
  let server: BenchPostgres | undefined;
  try {
    server = await startBenchPostgres('disk');
    const url = `postgres://${server.info.user}@${server.info.host}:${server.info.port}/postgres`;
    opts.log(
      `  small-suite: default PostgreSQL on disk on :${server.info.port} (fsync=${server.settings.fsync}), ${opts.files} files, ${opts.workers} workers`,
    );
    const workers = String(opts.workers);
    for (let rep = 0; rep < opts.repeats; rep++) {
      const p = await runVitest('vitest.plain.config.ts', { BENCH_SMALL_PG_URL: url, BENCH_SMALL_WORKERS: workers }, marks);
      whole.plain!.push(p.ms);
      first.plain!.push(p.firstTestMs);
      // A data root of its own per repeat: the first run finds no server and no template.
      const dataRoot = join(dirs.shm, `small-ftdb-${rep}`);
      mkdirSync(dataRoot, { recursive: true, mode: 0o755 });
      try {
        rmSync(initdbCache, { recursive: true, force: true });
        const env = { FAST_TEST_DB_DATA_ROOT: dataRoot, BENCH_SMALL_WORKERS: workers };
        const cold = await runVitest('vitest.ftdb.config.ts', env, marks);
        // With reuse its exit leaves the server up for the next run (and skips the stop, ~0.3 s).
        const second = await runVitest('vitest.ftdb.config.ts', { ...env, FAST_TEST_DB_REUSE: '1' }, marks);
        const reuse = await runVitest('vitest.ftdb.config.ts', { ...env, FAST_TEST_DB_REUSE: '1' }, marks);
        for (const [k, r] of [
          ['cold', cold],
          ['second', second],
          ['reuse', reuse],
        ] as const) {
          whole[k]!.push(r.ms);
          first[k]!.push(r.firstTestMs);
          if (r.templateBuilt !== undefined) built[k]!.push(r.templateBuilt);
        }
        opts.log(
          `  small-suite #${rep + 1}: default server ${(p.ms / 1000).toFixed(2)} s (first test ${p.firstTestMs} ms), fast-test-db first run ${(cold.ms / 1000).toFixed(2)} s (${cold.firstTestMs} ms), second ${(second.ms / 1000).toFixed(2)} s (${second.firstTestMs} ms), with reuse ${(reuse.ms / 1000).toFixed(2)} s (${reuse.firstTestMs} ms)`,
        );
      } finally {
        await removeDataRoot(dataRoot);
      }
    }
  } finally {
    await server?.stop();
    rmSync(GENERATED, { recursive: true, force: true });
    rmSync(initdbCache, { recursive: true, force: true });
    rmSync(marks, { recursive: true, force: true });
  }
  const labels = {
    plain: 'default PostgreSQL on disk, already running',
    cold: 'fast-test-db, first run (no server, no template)',
    second: 'fast-test-db, second run (server started again)',
    reuse: 'fast-test-db, FAST_TEST_DB_REUSE=1 (server and template up)',
  };
  const meta = (k: 'cold' | 'second' | 'reuse') => (built[k]!.length ? { meta: { templateBuilt: built[k] } } : {});
  const note = `${opts.files} Vitest files x 2 tests (forks, ${opts.workers} workers); each file builds a 3,000-product catalog and runs 8 queries through a pg pool.`;
  const wholeSection: Section = {
    id: 'small-suite',
    title: `Small suite: ${opts.files} Vitest files, little database work, whole run`,
    unit: 'ms',
    baseline: 'plain',
    rows: KEYS.map((k) => row(k, labels[k], whole[k]!, k === 'plain' ? {} : meta(k))),
    notes: [
      note,
      "The default server is started before the timed run; the suite's global setup drops and makes one database per worker with the schema, and every file TRUNCATEs its tables, as a project without a library does.",
      'The first run starts with no server, no template and no caches at all (initdb runs). It stops its server on exit and saves its data directory, so the second run starts the server again from that warm copy, template included. The second run is made with FAST_TEST_DB_REUSE=1, so its exit leaves the server up (and skips the stop, about 0.3 s); the third run, also with reuse, finds the server and the template.',
    ],
  };
  const firstSection: Section = {
    id: 'small-suite-first-test',
    title: `Small suite: from starting Vitest to the first test`,
    unit: 'ms',
    baseline: 'plain',
    rows: KEYS.map((k) => row(k, labels[k], first[k]!)),
    notes: ["The wall clock when Vitest was spawned to the earliest start of any file's first test."],
  };
  return { sections: [withSpeedups(wholeSection), withSpeedups(firstSection)], servers: { plain: server?.settings } };
}
