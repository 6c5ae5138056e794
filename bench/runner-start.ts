/**
 * Runner start bench: the fixture suite (4 files, 2 workers) run as a user starts it on a server
 * that is not running yet, timed from spawn to the first test and to exit, in three setups run
 * alternately in one process:
 * - `rebuild`: no warm start (FAST_TEST_DB_DATA_CACHE=0) and the server started before the runner
 *   goes on (FAST_TEST_DB_EARLY=0): what every run paid before the warm start became the default;
 * - `warm`: the data directory copied back with its template, still started before the workers;
 * - `warm+early`: the same, handed to the workers while it starts (the default).
 *
 *   npx tsx bench/runner-start.ts [--runner jest|vitest|both] [--repeat 3]
 *
 * Writes bench/results/runner-start.json.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { timedRun } from './lib/timed-run.js';

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'test/fixtures/runners');
const BIN = (name: string) => join(ROOT, 'node_modules/.bin', name);
const LEAKY = /^(VITEST|JEST_|FAST_TEST_DB_|NODE_TEST_|MOCHA_|TEST_DATABASE_URL$|NODE_OPTIONS$|APP_DATABASE_URL$|DATABASE_URL$)/;

/** One run of the fixture suite on a data root of its own: its own server, started cold. */
async function runSuite(
  runner: 'jest' | 'vitest',
  env: Record<string, string>,
): Promise<{ code: number | null; output: string; records: Array<{ at: number }>; ms: number }> {
  const dir = mkdtempSync('/tmp/ftdb-bench-start-');
  const dataRoot = mkdtempSync('/dev/shm/ftdb-bench-start-');
  chmodSync(dataRoot, 0o755);
  const report = join(dir, 'report.jsonl');
  const [cmd, args, extra] =
    runner === 'jest'
      ? [
          BIN('jest'),
          ['--config', 'jest.config.mjs', '--maxWorkers=2', `--cacheDirectory=${join(dir, 'jest-cache')}`],
          { NODE_OPTIONS: '--import tsx' },
        ]
      : [BIN('vitest'), ['run', '--config', 'vitest.config.ts'], { FIXTURE_POOL: 'forks' }];
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !LEAKY.test(k))) as Record<string, string>;
  const { code, output, ms } = await timedRun(cmd, args, {
    cwd: FIXTURE,
    env: { ...clean, FAST_TEST_DB_DATA_ROOT: dataRoot, FIXTURE_REPORT: report, ...extra, ...env },
  });
  const records = existsSync(report)
    ? readFileSync(report, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { at: number })
    : [];
  // The server stops at the run's end (graceMs 0); give its keeper a moment before removing the root.
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataRoot, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  rmSync(dir, { recursive: true, force: true });
  return { code, output, records, ms };
}

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const repeat = Number(arg('repeat', '3'));
const runnerArg = arg('runner', 'both');
const runners = runnerArg === 'both' ? (['jest', 'vitest'] as const) : [runnerArg as 'jest' | 'vitest'];
const SETUPS = {
  rebuild: { FAST_TEST_DB_DATA_CACHE: '0', FAST_TEST_DB_EARLY: '0' },
  warm: { FAST_TEST_DB_EARLY: '0' },
  'warm+early': {},
} as const;
type Setup = keyof typeof SETUPS;

const cacheDir = mkdtempSync('/tmp/ftdb-bench-start-cache-');
// FIXTURE_LIGHT: the probe's few queries, without the burst of server work it adds for CPU pairing's tests.
const common = {
  FIXTURE_CACHE_KEY: 'runner-start',
  FAST_TEST_DB_CACHE_DIR: cacheDir,
  FAST_TEST_DB_GRACE_MS: '0',
  FIXTURE_SLEEP_MS: '0',
  FIXTURE_LIGHT: '1',
};

async function once(runner: 'jest' | 'vitest', setup: Setup): Promise<{ firstTest: number; whole: number }> {
  const t0 = Date.now();
  const r = await runSuite(runner, { ...common, ...SETUPS[setup] });
  if (r.code !== 0 || r.records.length === 0) throw new Error(`${runner} ${setup} failed:\n${r.output}`);
  return { firstTest: Math.min(...r.records.map((x) => x.at)) - t0, whole: r.ms };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<string, { firstTest: number[]; whole: number[] }> = {};
for (const runner of runners) {
  await once(runner, 'warm'); // fills the warm copy and the runner's own caches
  for (let i = 0; i < repeat; i++)
    for (const setup of Object.keys(SETUPS) as Setup[]) {
      const r = await once(runner, setup);
      const key = `${runner} ${setup}`;
      (results[key] ??= { firstTest: [], whole: [] }).firstTest.push(r.firstTest);
      results[key].whole.push(r.whole);
      console.log(`${key}: first test ${r.firstTest} ms, whole run ${Math.round(r.whole)} ms`);
    }
}
rmSync(cacheDir, { recursive: true, force: true });

console.log('\n| runner, setup | spawn → first test (median) | whole run (median) |\n|---|---|---|');
const summary = Object.entries(results).map(([key, r]) => ({
  key,
  firstTest: median(r.firstTest),
  whole: Math.round(median(r.whole)),
  runs: r,
}));
for (const s of summary) console.log(`| ${s.key} | ${s.firstTest} ms | ${s.whole} ms |`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench/results/runner-start.json'),
  JSON.stringify({ date: new Date().toISOString(), cores: cpus().length, load: loadavg(), repeat, summary }, null, 2) + '\n',
);
