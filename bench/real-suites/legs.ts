/**
 * One leg of a real-suite shape: a whole runner run, spawned as a user starts it and timed from spawn
 * to exit, with the runner's own account of its tests (Vitest's "tests" duration, the sum of Jest's
 * per-file run times) and its pass/fail counts. A run with a failure is kept but gets no ratio.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { WORKER_ENV_VARS } from '../../src/options/workers.js';
import { timedRun } from '../lib/timed-run.js';
import type { Shape } from './generate.js';

const ROOT = resolve(import.meta.dirname, '../..');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const JEST = createRequire(import.meta.url).resolve('jest/bin/jest');

export interface LegRun {
  ms: number;
  testsMs: number;
  passed: number;
  failed: number;
  ok: boolean;
  /** Vitest's split of its duration (transform, setup, import, tests, environment, ...), summed over workers. */
  breakdown?: Record<string, number>;
  /** The library's status line, when there is one. */
  banner?: string;
  failure?: string;
}

/** The bench's own environment minus what would steer the run: worker ids, our env vars, another runner's. */
function cleanEnv(): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const k of WORKER_ENV_VARS) delete base[k];
  for (const k of Object.keys(base))
    if (/^(VITEST|JEST_|FAST_TEST_DB_|TEST_DATABASE_URL$|APP_DATABASE_URL$|NODE_OPTIONS$)/.test(k)) delete base[k];
  return base;
}

const toMs = (n: string, unit: string) => Number(n) * (unit === 's' ? 1000 : 1);

export async function runLeg(shape: Shape, dir: string, config: 'plain' | 'ftdb', env: Record<string, string>): Promise<LegRun> {
  const report = join(dir, 'jest-report.json');
  rmSync(report, { force: true });
  const args =
    shape.runner === 'vitest'
      ? [VITEST, 'run', '--config', `vitest.${config}.config.ts`]
      : [JEST, '--config', `jest.${config}.config.cjs`, '--json', '--outputFile', report];
  const { code, output, ms } = await timedRun(process.execPath, args, {
    cwd: dir,
    env: { ...cleanEnv(), ...env, FORCE_COLOR: '0', CI: '' },
  });
  let testsMs = NaN;
  let passed = 0;
  let failed = 0;
  let breakdown: Record<string, number> | undefined;
  if (shape.runner === 'vitest') {
    const t = /tests (\d+(?:\.\d+)?)(ms|s)/.exec(output);
    if (t) testsMs = toMs(t[1]!, t[2]!);
    const split = /Duration\s+\S+\s+\(([^)]*)\)/.exec(output)?.[1] ?? '';
    breakdown = Object.fromEntries([...split.matchAll(/(\w+) (\d+(?:\.\d+)?)(ms|s)/g)].map((m) => [m[1]!, toMs(m[2]!, m[3]!)]));
    passed = Number(/Tests\s+.*?(\d+) passed/.exec(output)?.[1] ?? 0);
    failed = Number(/Tests\s+.*?(\d+) failed/.exec(output)?.[1] ?? 0);
  } else if (existsSync(report)) {
    const j = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: Array<{ startTime: number; endTime: number }>;
    };
    passed = j.numPassedTests;
    failed = j.numFailedTests;
    testsMs = j.testResults.reduce((s, r) => s + (r.endTime - r.startTime), 0);
  }
  const ok = code === 0 && failed === 0 && passed > 0;
  const banner = /fast-test-db: [^\n]*/.exec(output)?.[0];
  return {
    ms,
    testsMs,
    passed,
    failed,
    ok,
    ...(breakdown ? { breakdown } : {}),
    ...(banner ? { banner } : {}),
    ...(ok ? {} : { failure: output.split('\n').slice(-40).join('\n') }),
  };
}
