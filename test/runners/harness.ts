/**
 * Runs the real Jest, Vitest and node --test on the fixture project in test/fixtures/runners, each
 * run against its own server registry (a private data root), and reads back what the fixture tests
 * recorded.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { removeDataRoot } from '../core/helpers.js';
import type { ProbeRecord } from '../fixtures/runners/probe.js';
import { fileTimesPath } from '../../src/runners/jest/base-sequencer.js';
import { argsOf, otherPids } from '../../src/server/os/processes.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FIXTURE = join(ROOT, 'test/fixtures/runners');
export const BIN = (name: string) => join(ROOT, 'node_modules/.bin', name);

/**
 * Env of the outer test runner that must not leak into the inner one (also used by test/package).
 * FAST_TEST_DB_REUSE passes through: vitest.config.ts sets it to 0, so that the runs the suite spawns
 * keep no server behind them for the idle timeout.
 */
export const LEAKY =
  /^(VITEST|JEST_|FAST_TEST_DB_(?!REUSE$)|NODE_TEST_|MOCHA_|TEST_PARALLEL_INDEX$|TEST_TOKEN$|TEST_DATABASE_URL$|NODE_OPTIONS$|TEST$|APP_DATABASE_URL$|DATABASE_URL$)/;

export interface Sandbox {
  dir: string;
  dataRoot: string;
  migrateLog: string;
  env: Record<string, string>;
  migrations(): number;
  cleanup(): Promise<void>;
}

export function sandbox(name: string): Sandbox {
  const dir = mkdtempSync(`/tmp/ftdb-${name}-`);
  const dataRoot = mkdtempSync(`/dev/shm/ftdb-${name}-`);
  chmodSync(dataRoot, 0o755); // the server may run as an unprivileged user when we are root
  const migrateLog = join(dir, 'migrate.log');
  return {
    dir,
    dataRoot,
    migrateLog,
    // A cache of its own: a warm copy left by an earlier test run must not make migrate run 0 times here.
    env: {
      FAST_TEST_DB_DATA_ROOT: dataRoot,
      FIXTURE_MIGRATE_LOG: migrateLog,
      FIXTURE_CACHE_KEY: name,
      FAST_TEST_DB_CACHE_DIR: join(dir, 'cache'),
    },
    migrations: () => (existsSync(migrateLog) ? readFileSync(migrateLog, 'utf8').split('\n').filter(Boolean).length : 0),
    async cleanup() {
      await removeDataRoot(dataRoot);
      // A stopped server's warm copy is written by a process of its own, into this sandbox's cache.
      await waitNoProcesses(dataRoot);
      // A run stopped by a failed template build exits its main process while Jest's workers may
      // still be finishing a write into their transform cache here: retry until they are gone.
      for (let tries = 0; ; tries++) {
        try {
          rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
          return;
        } catch (err) {
          if (tries >= 20 || (err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
  };
}

/** Pids of processes whose command line mentions the data root: keepers and servers of this sandbox. */
export function processesUnder(dataRoot: string): number[] {
  return otherPids().filter((pid) => argsOf(pid)?.some((a) => a.includes(dataRoot)));
}

/**
 * Waits for the sandbox's processes to end (a keeper's grace period, a warm copy being written: slow
 * on a busy machine) and returns those still running, each with its command line, to show in a failure.
 */
export async function waitNoProcesses(dataRoot: string, ms = 30_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = processesUnder(dataRoot);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesUnder(dataRoot);
  }
  return left.map((pid) => `${pid} ${argsOf(pid)?.join(' ').trim() ?? '(ended)'}`);
}

export interface RunResult {
  code: number | null;
  output: string;
  records: ProbeRecord[];
  ms: number;
}

let runs = 0;

export async function run(
  sb: Sandbox,
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cwd = FIXTURE,
): Promise<RunResult> {
  const report = join(sb.dir, `report-${++runs}.jsonl`);
  const started = performance.now();
  const { code, output, records } = await runReporting<ProbeRecord>(command, args, cwd, { ...sb.env, ...env }, report);
  return { code, output, records, ms: performance.now() - started };
}

/**
 * Runs a fixture's command with this process's env minus the variables that would leak into it
 * (LEAKY), plus `env`, and reads back the JSON lines its test files wrote to `report`.
 */
export async function runReporting<R>(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  report: string,
): Promise<{ code: number | null; output: string; records: R[]; pid: number }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !LEAKY.test(k))) as Record<string, string>;
  const child = spawn(command, args, { cwd, env: { ...clean, FIXTURE_REPORT: report, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const records = existsSync(report)
    ? readFileSync(report, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as R)
    : [];
  return { code, output, records, pid: child.pid! };
}

let jestRuns = 0;
/**
 * Jest's argument for a run that knows no file durations: a cache directory of its own, and none of
 * the durations our sequencer keeps in the sandbox's cache. With timings under 1 s known, Jest runs
 * a suite of up to 20 files in band whatever --maxWorkers says, which a second run on a reused
 * server always has, and "2 workers" would be one.
 */
export function coldJestCache(sb: Sandbox): string {
  rmSync(fileTimesPath(sb.env.FAST_TEST_DB_CACHE_DIR!), { force: true });
  return emptyJestCache(sb);
}

/** Jest's argument for a cache directory of its own, leaving our sequencer's durations as they are. */
export function emptyJestCache(sb: Sandbox): string {
  return `--cacheDirectory=${join(sb.dir, `jest-cache-${++jestRuns}`)}`;
}

export const jest = (sb: Sandbox, env: Record<string, string> = {}, extra: string[] = []) =>
  run(sb, BIN('jest'), ['--config', 'jest.config.mjs', '--maxWorkers=2', coldJestCache(sb), ...extra], {
    NODE_OPTIONS: '--import tsx',
    ...env,
  });

export const vitest = (sb: Sandbox, pool: 'forks' | 'threads', env: Record<string, string> = {}) =>
  run(sb, BIN('vitest'), ['run', '--config', 'vitest.config.ts'], { FIXTURE_POOL: pool, ...env });

export const nodeTest = (sb: Sandbox, env: Record<string, string> = {}) =>
  run(
    sb,
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      join(ROOT, 'src/runners/node-test/index.ts'),
      '--test',
      '--test-concurrency=2',
      ...['a', 'b', 'c', 'd'].map((f) => `node/${f}.test.ts`),
    ],
    env,
  );

/** Records grouped by database, in the order the tests wrote them. */
export function byDatabase(records: ProbeRecord[]): Map<string, ProbeRecord[]> {
  const map = new Map<string, ProbeRecord[]>();
  for (const r of records) map.set(r.database, [...(map.get(r.database) ?? []), r]);
  return map;
}

/** The database name in a postgres:// URL. */
export const urlDatabase = (url: string | undefined) => (url ? decodeURIComponent(new URL(url).pathname.slice(1)) : undefined);
