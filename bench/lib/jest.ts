/**
 * One whole Jest run of the TypeORM workload's four files, as a user would start it, timed from spawn to exit.
 * Each run gets a fresh transform cache (a CI machine's first run), so the transformer's cost shows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { TypeormJestEnv } from '../typeorm-jest/store.js';
import { benchDirs } from './dirs.js';
import { timedRun } from './timed-run.js';

const ROOT = resolve(import.meta.dirname, '../..');
const JEST_BIN = createRequire(import.meta.url).resolve('jest/bin/jest');

export type Transformer = 'ts-jest' | 'swc';

export interface JestRunSpec {
  env: TypeormJestEnv;
  transformer: Transformer;
  /** 1 = --runInBand. */
  workers: number;
  /** Extra env for the Jest process (e.g. the library's data root). */
  extraEnv?: Record<string, string>;
}

export interface JestRunResult {
  ms: number;
  ok: boolean;
  tests: { passed: number; failed: number };
  /** The last lines of Jest's output when the run failed. */
  failure?: string;
}

function transformFor(t: Transformer): [string, unknown] {
  if (t === 'ts-jest') return ['ts-jest', { tsconfig: join(ROOT, 'bench/typeorm-jest/tsconfig.json') }];
  return [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ];
}

export function jestConfig(spec: JestRunSpec, cacheDirectory: string): Record<string, unknown> {
  return {
    rootDir: ROOT,
    roots: ['<rootDir>/bench/typeorm-jest'],
    testMatch: ['**/bench/typeorm-jest/tests/*.test.ts'],
    testEnvironment: 'node',
    moduleFileExtensions: ['ts', 'js', 'cjs', 'mjs', 'json'],
    // Sources import with .js suffixes (ESM style); Jest resolves the .ts file behind them.
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: { '^.+\\.ts$': transformFor(spec.transformer) },
    globalSetup: join(ROOT, 'bench/typeorm-jest/global-setup.mjs'),
    // fast-test-db's step gets the sequencer withFastTestDb sets: Jest's order, with the file
    // durations of earlier runs kept in our cache directory (this run's Jest cache is empty).
    ...(spec.env.store === 'ftdb' ? { testSequencer: join(ROOT, 'dist/runners/jest-sequencer.cjs') } : {}),
    cacheDirectory,
    testTimeout: 3_600_000,
    // maxWorkers 1 is --runInBand: the tests run in Jest's own process.
    maxWorkers: spec.workers,
    ci: true,
    silent: true,
  };
}

export async function runJest(spec: JestRunSpec): Promise<JestRunResult> {
  const runDir = mkdtempSync(join(benchDirs().shm, 'jest-'));
  const cacheDirectory = join(runDir, 'cache');
  const configFile = join(runDir, 'jest.config.json');
  writeFileSync(configFile, JSON.stringify(jestConfig(spec, cacheDirectory)));
  const {
    code,
    output: out,
    ms,
  } = await timedRun(process.execPath, [JEST_BIN, '--config', configFile], {
    cwd: ROOT,
    env: { ...process.env, ...spec.extraEnv, BENCH_TYPEORM_JEST: JSON.stringify(spec.env), FORCE_COLOR: '0' },
  });
  rmSync(runDir, { recursive: true, force: true });
  const passed = Number(/Tests:.*?(\d+) passed/.exec(out)?.[1] ?? 0);
  const failed = Number(/Tests:.*?(\d+) failed/.exec(out)?.[1] ?? 0);
  const ok = code === 0;
  return { ms, ok, tests: { passed, failed }, ...(ok ? {} : { failure: out.split('\n').slice(-40).join('\n') }) };
}
