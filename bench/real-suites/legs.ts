/**
 * One leg of a real-suite shape: a whole runner run, spawned as a user starts it and timed from spawn
 * to exit, with the time until its first test began (the generated files write it down), the runner's
 * own account of its tests (Vitest's "tests" duration, the sum of Jest's per-test durations) and its
 * pass/fail counts. A run with a failure is kept but gets no ratio.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { WORKER_ENV_VARS } from '../../src/options/workers.js';
import { timedRun } from '../lib/timed-run.js';
import { FIRST_TEST_MARKS, type Shape } from './generate.js';
import { firstTestMs, parseJestReport, parseVitest, type RunnerAccount } from './parse.js';

const ROOT = resolve(import.meta.dirname, '../..');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const JEST = createRequire(import.meta.url).resolve('jest/bin/jest');

export interface LegRun extends RunnerAccount {
  ms: number;
  /** From spawn to the moment the first test of any file began (after its file's imports and beforeAll). */
  firstTestMs: number;
  ok: boolean;
  /** The library's status line, when there is one. */
  banner?: string;
  failure?: string;
}

/** The bench's own environment minus what would steer the run: worker ids, our env vars, another runner's. */
function cleanEnv(): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const k of WORKER_ENV_VARS) delete base[k];
  for (const k of Object.keys(base))
    if (/^(VITEST|JEST_|FAST_TEST_DB_|TEST_DATABASE_URL$|APP_DATABASE_URL$|NODE_OPTIONS$|FORCE_COLOR$)/.test(k)) delete base[k];
  return base;
}

/**
 * `runnerCache`: an empty folder for the runner's caches, as a new clone has none. Jest's is its
 * transform cache (ts-jest's output); Vitest keeps no transforms on disk by default, only the last
 * run's results (for the file order), removed here.
 */
export async function runLeg(
  shape: Shape,
  dir: string,
  config: 'plain' | 'ftdb',
  env: Record<string, string>,
  { runnerCache }: { runnerCache?: string } = {},
): Promise<LegRun> {
  const report = join(dir, 'jest-report.json');
  const marks = join(dir, FIRST_TEST_MARKS);
  rmSync(report, { force: true });
  rmSync(marks, { force: true });
  if (runnerCache && shape.runner === 'vitest') rmSync(join(dir, 'node_modules/.vite'), { recursive: true, force: true });
  const args =
    shape.runner === 'vitest'
      ? [VITEST, 'run', '--config', `vitest.${config}.config.ts`]
      : [
          JEST,
          '--config',
          `jest.${config}.config.cjs`,
          '--json',
          '--outputFile',
          report,
          ...(runnerCache ? [`--cacheDirectory=${runnerCache}`] : []),
        ];
  const spawnedAt = Date.now();
  const { code, output, ms } = await timedRun(process.execPath, args, {
    cwd: dir,
    // NO_COLOR: Vitest colours its summary under FORCE_COLOR=0 (the parser strips colour codes anyway).
    env: { ...cleanEnv(), ...env, NO_COLOR: '1', CI: '' },
  });
  const account: RunnerAccount =
    shape.runner === 'vitest'
      ? parseVitest(output)
      : existsSync(report)
        ? parseJestReport(readFileSync(report, 'utf8'))
        : { testsMs: NaN, passed: 0, failed: 0 };
  const ok = code === 0 && account.failed === 0 && account.passed > 0;
  const banner = /fast-test-db: [^\n]*/.exec(output)?.[0];
  return {
    ms,
    firstTestMs: existsSync(marks) ? firstTestMs(readFileSync(marks, 'utf8'), spawnedAt) : NaN,
    ...account,
    ok,
    ...(banner ? { banner } : {}),
    ...(ok ? {} : { failure: output.split('\n').slice(-40).join('\n') }),
  };
}
