/**
 * fast-test-db/jest: one line in jest.config wires the global setup, teardown and setup file.
 *
 *   // jest.config.mjs
 *   import { withFastTestDb } from 'fast-test-db/jest';
 *   export default withFastTestDb({ testEnvironment: 'node' }, { migrate, envVar: 'DATABASE_URL' });
 */
import { buildContext } from '../../options/context.js';
import type { FastTestDbConfig } from '../../types.js';
import { FastTestDbError } from '../../errors.js';
import { stashOptions } from '../shared/global.js';
import { requireHandoff, workerTarget } from '../shared/handoff.js';
import { jestBaseSequencer } from './base-sequencer.js';
import { runnerFile } from '../shared/paths.js';
import type { TestDatabase } from '../../types.js';
import { workerDatabase } from '../shared/worker.js';
import { liftJestSerial } from '../shared/serial.js';

export { default as globalSetup } from './global-setup.js';
export { default as globalTeardown } from './global-teardown.js';
export type { FastTestDbConfig } from '../../types.js';
export type { TestDatabase } from '../../types.js';
export type { Isolation } from '../shared/handoff.js';

interface JestConfigLike {
  globalSetup?: string | null;
  globalTeardown?: string | null;
  setupFilesAfterEnv?: string[];
  testSequencer?: string;
  maxWorkers?: number | string;
  [key: string]: unknown;
}

/** Paths of the files Jest loads by path, for configs that list them by hand. */
export function jestFiles(): { globalSetup: string; globalTeardown: string; setupFile: string; testSequencer: string } {
  return {
    globalSetup: runnerFile('jest-global-setup', 'jest/global-setup'),
    globalTeardown: runnerFile('jest-global-teardown', 'jest/global-teardown'),
    setupFile: runnerFile('jest-setup', 'jest/setup'),
    testSequencer: runnerFile('jest-sequencer', 'jest/sequencer'),
  };
}

/**
 * Returns `config` with our global setup, teardown and setup file added, and our test sequencer
 * unless the config names one or no Jest is found from here (Jest's order, with durations that
 * outlive Jest's cache: see jest-sequencer.ts). Options here override
 * fast-test-db.config.*; they reach the global setup in Jest's main process, where this config is
 * evaluated, so `migrate` may be a function. A `maxWorkers: 1` is dropped (serial.ts): each worker
 * has its own database, so Jest's default number of workers applies, unless `keepSerial`.
 */
export function withFastTestDb<C extends JestConfigLike>(config: C, options: FastTestDbConfig = {}): C {
  if (config.globalSetup || config.globalTeardown)
    throw new FastTestDbError(
      'BAD_OPTION',
      'this Jest config already has a globalSetup/globalTeardown, and Jest takes only one of each',
      "call ours from yours instead: import { globalSetup, globalTeardown } from 'fast-test-db/jest', await globalSetup(globalConfig, projectConfig) in your setup, and list jestFiles().setupFile under setupFilesAfterEnv",
    );
  stashOptions(options);
  const files = jestFiles();
  return {
    ...liftJestSerial(config, options),
    globalSetup: files.globalSetup,
    globalTeardown: files.globalTeardown,
    setupFilesAfterEnv: [files.setupFile, ...(config.setupFilesAfterEnv ?? [])],
    ...(config.testSequencer || !jestBaseSequencer() ? {} : { testSequencer: files.testSequencer }),
  };
}

/** This worker's database, inside a test file. The runner owns it: disposing the handle only closes it. */
export async function testDatabase(): Promise<TestDatabase> {
  const ctx = buildContext({}, { check: false });
  const h = requireHandoff(ctx, 'jest');
  return workerDatabase(h, workerTarget(h, ctx.names.worker));
}

/** True inside a Jest run wired with fast-test-db. */
export function isActive(): boolean {
  return buildContext({}, { check: false }).handoff !== undefined;
}
