/**
 * Runner bench: one whole run of a 40-file suite, as a user starts it, timed from spawn to exit,
 * with 1 vs 2 workers and per-worker vs per-file isolation. The server is started (and the template
 * built) by a warm-up run and reused, so the figures are the suite's, not the server start's.
 * `--pairing both` runs every case with CPU pairing on and off (src/runners/shared/cpu-pairing.ts).
 *
 *   npx tsx bench/runners.ts [--runner vitest|jest|both] [--files 40] [--inserts 200] [--repeat 3] [--pairing on|both] [--quick]
 *
 * Prints a table and the ratios; writes bench/results/runners.json (runners-pairing.json with --pairing both).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, coldJestCache, FIXTURE, ROOT, run, sandbox, type Sandbox } from '../test/runners/harness.js';

type Runner = 'vitest' | 'jest';
type Isolation = 'worker' | 'file';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const quick = argv.includes('--quick');
const files = Number(arg('files', quick ? '20' : '40'));
const inserts = Number(arg('inserts', '200'));
const repeat = Number(arg('repeat', quick ? '1' : '3'));
const runnerArg = arg('runner', 'vitest');
const runners: Runner[] = runnerArg === 'both' ? ['vitest', 'jest'] : [runnerArg as Runner];
const pairings = arg('pairing', 'on') === 'both' ? [true, false] : [true];

const SUITE = join(FIXTURE, '.bench-suite');

/** Each file: what an integration test file does, a few hundred statements through the app's pool. */
function writeSuite(runner: Runner): string {
  const dir = join(SUITE, runner);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const from = runner === 'jest' ? '@jest/globals' : 'vitest';
  for (let i = 0; i < files; i++) {
    writeFileSync(
      join(dir, `f${String(i).padStart(2, '0')}.test.ts`),
      `import { afterAll, expect, test } from '${from}';
import { pool } from '../../app${runner === 'jest' ? '' : '.js'}';

afterAll(() => pool.end());

test('inserts and reads back', async () => {
  const before = Number((await pool.query('SELECT count(*) AS n FROM item')).rows[0].n);
  for (let i = 0; i < ${inserts}; i++) await pool.query('INSERT INTO item (label) VALUES ($1)', ['f${i}-' + i]);
  const after = Number((await pool.query('SELECT count(*) AS n FROM item')).rows[0].n);
  expect(after - before).toBe(${inserts});
});
`,
    );
  }
  return dir;
}

function start(sb: Sandbox, runner: Runner, workers: number, isolation: Isolation, pairing = true) {
  const env = {
    FAST_TEST_DB_REUSE: '1',
    FAST_TEST_DB_CPU_PAIRING: pairing ? '1' : '0',
    FIXTURE_ISOLATION: isolation,
    FIXTURE_CACHE_KEY: 'bench-runners',
  };
  if (runner === 'vitest')
    return run(sb, BIN('vitest'), ['run', '--config', 'vitest.config.ts'], {
      ...env,
      FIXTURE_POOL: 'forks',
      FIXTURE_WORKERS: String(workers),
      FIXTURE_INCLUDE: '.bench-suite/vitest/*.test.ts',
    });
  return run(sb, BIN('jest'), ['--config', 'jest.config.mjs', `--maxWorkers=${workers}`, coldJestCache(sb)], {
    ...env,
    NODE_OPTIONS: '--import tsx',
    FIXTURE_TEST_MATCH: '<rootDir>/.bench-suite/jest/*.test.ts',
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Case {
  runner: Runner;
  workers: number;
  isolation: Isolation;
  pairing: boolean;
  samplesMs: number[];
  medianMs?: number;
}

async function benchRunner(runner: Runner): Promise<{ cases: Case[]; ratios: Record<string, number> }> {
  writeSuite(runner);
  const sb = sandbox(`bench-${runner}`);
  try {
    const warm = await start(sb, runner, 2, 'worker');
    if (warm.code !== 0) throw new Error(`warm-up ${runner} run failed:\n${warm.output.slice(-4000)}`);
    const cases: Case[] = [];
    for (const pairing of pairings)
      for (const isolation of ['worker', 'file'] as const)
        for (const workers of [1, 2]) cases.push({ runner, workers, isolation, pairing, samplesMs: [] });
    // Interleaved, so that a machine busy for a while slows every case alike.
    for (let i = 0; i < repeat; i++) {
      for (const c of cases) {
        const r = await start(sb, runner, c.workers, c.isolation, c.pairing);
        const what = `${c.workers} worker(s), isolation ${c.isolation}, pairing ${c.pairing ? 'on' : 'off'}`;
        if (r.code !== 0) throw new Error(`${runner} ${what} failed:\n${r.output.slice(-4000)}`);
        c.samplesMs.push(Math.round(r.ms));
        process.stderr.write(`  ${runner} ${what}: ${Math.round(r.ms)} ms\n`);
      }
    }
    for (const c of cases) c.medianMs = median(c.samplesMs);
    const t = (w: number, iso: Isolation, pairing = true) =>
      cases.find((c) => c.workers === w && c.isolation === iso && c.pairing === pairing)!.medianMs!;
    const ratios: Record<string, number> = {
      'speedup 2w vs 1w (per worker)': t(1, 'worker') / t(2, 'worker'),
      'speedup 2w vs 1w (per file)': t(1, 'file') / t(2, 'file'),
      'per-file cost vs per-worker (1w)': t(1, 'file') / t(1, 'worker'),
      'per-file cost vs per-worker (2w)': t(2, 'file') / t(2, 'worker'),
    };
    if (pairings.length > 1)
      for (const w of [1, 2]) ratios[`pairing speed-up, ${w}w (per worker)`] = t(w, 'worker', false) / t(w, 'worker');
    return { cases, ratios };
  } finally {
    await sb.cleanup();
    rmSync(join(SUITE, runner), { recursive: true, force: true });
  }
}

// Other work on the machine skews wall times: the load average goes into the results.
const loadBefore = loadavg();
const results = [];
for (const runner of runners) {
  process.stderr.write(`${runner}: ${files} files x ${inserts} inserts, ${repeat} repeat(s)\n`);
  const r = await benchRunner(runner);
  results.push({ runner, ...r });
  console.log(`\n${runner}, ${files} files, ${inserts} inserts each (median of ${repeat}, wall ms from spawn to exit)`);
  console.log('| workers | isolation | pairing | median ms | samples |');
  console.log('|---|---|---|---|---|');
  for (const c of r.cases)
    console.log(`| ${c.workers} | ${c.isolation} | ${c.pairing ? 'on' : 'off'} | ${c.medianMs} | ${c.samplesMs.join(', ')} |`);
  for (const [k, v] of Object.entries(r.ratios)) console.log(`${k}: ${v.toFixed(2)}x`);
}
rmSync(SUITE, { recursive: true, force: true });

const out = join(ROOT, 'bench/results');
mkdirSync(out, { recursive: true });
const file = join(out, pairings.length > 1 ? 'runners-pairing.json' : 'runners.json');
writeFileSync(
  file,
  JSON.stringify(
    {
      bench: 'runners',
      date: new Date().toISOString(),
      params: { files, inserts, repeat, pairing: pairings.length > 1 ? 'both' : 'on' },
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        memGb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        loadavgBefore: loadBefore,
        loadavgAfter: loadavg(),
      },
      results,
    },
    null,
    2,
  ) + '\n',
);
console.log(`\nwrote ${file}`);
