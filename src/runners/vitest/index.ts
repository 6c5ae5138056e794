/**
 * fast-test-db/vitest: one wrapper in vitest.config adds the global setup and the setup file.
 *
 *   // vitest.config.ts
 *   import { defineConfig } from 'vitest/config';
 *   import { withFastTestDb } from 'fast-test-db/vitest';
 *   export default defineConfig(withFastTestDb({ test: { pool: 'forks' } }, { migrate }));
 *
 * pool 'threads': every thread is its own worker (VITEST_POOL_ID) with its own copy of process.env,
 * so the exported URL is right per thread; but all threads share one pid and one process, so
 * never derive a database from process.pid, create connection pools after the setup file ran
 * (not in code evaluated by vitest.config), and prefer `testDatabase()` or `inject('fastTestDb')`
 * over env vars in code that is shared across threads (globalThis state with isolate: false).
 */
import { buildContext } from '../../options/context.js';
import type { FastTestDbConfig } from '../../types.js';
import { stashOptions } from '../shared/global.js';
import { PROVIDE_KEY, workerTarget, type Handoff } from '../shared/handoff.js';
import { runnerFile } from '../shared/paths.js';
import type { TestDatabase } from '../../types.js';
import { workerDatabase } from '../shared/worker.js';
import { FastTestDbError } from '../../errors.js';
import { expectRunner } from '../shared/current-runner.js';
import { liftVitestSerial } from '../shared/serial.js';

export type { FastTestDbConfig } from '../../types.js';
export type { TestDatabase } from '../../types.js';
export type { Handoff, Isolation } from '../shared/handoff.js';
export { PROVIDE_KEY } from '../shared/handoff.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** What fast-test-db's global setup hands to workers: server, template, isolation, env vars. */
    fastTestDb: Handoff;
  }
}

interface VitestConfigLike {
  test?: {
    globalSetup?: string | string[];
    setupFiles?: string | string[];
    maxWorkers?: number | string;
    fileParallelism?: boolean;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Paths of the files Vitest loads by path, for configs that list them by hand. */
export function vitestFiles(): { globalSetup: string; setupFile: string } {
  const order = ['.js', '.mjs', '.cjs'];
  return {
    globalSetup: runnerFile('vitest-global-setup', 'vitest/global-setup', order),
    setupFile: runnerFile('vitest-setup', 'vitest/setup', order),
  };
}

/**
 * Returns `config` with our global setup and setup file added (ours first, so the URL is exported
 * before the user's setup files import the app). Options override fast-test-db.config.*. A
 * `fileParallelism: false` or `maxWorkers: 1` is dropped (serial.ts): each worker has its own
 * database, so Vitest's default number of workers applies, unless `keepSerial`.
 */
export function withFastTestDb<C extends VitestConfigLike>(config: C, options: FastTestDbConfig = {}): C {
  stashOptions(options);
  const files = vitestFiles();
  return {
    ...config,
    test: {
      ...liftVitestSerial(config.test ?? {}, options),
      globalSetup: [files.globalSetup, ...list(config.test?.globalSetup)],
      setupFiles: [files.setupFile, ...list(config.test?.setupFiles)],
    },
  };
}

/** This worker's database, inside a test file. The runner owns it: disposing the handle only closes it. */
export async function testDatabase(): Promise<TestDatabase> {
  // Outside Vitest, loading it fails (not installed, or its internal state missing) in words that name neither runner.
  const ctx = buildContext({}, { check: false });
  expectRunner('vitest', "testDatabase() from 'fast-test-db/vitest'", ctx.env);
  const { inject } = await import('vitest');
  const handoff = ((inject as (key: string) => unknown)(PROVIDE_KEY) as Handoff | undefined) ?? ctx.handoff;
  if (!handoff)
    throw new FastTestDbError(
      'BAD_OPTION',
      'testDatabase() found no fast-test-db global setup in this Vitest run',
      "wrap the config in withFastTestDb(...) from 'fast-test-db/vitest'",
    );
  return workerDatabase(handoff, workerTarget(handoff, ctx.names.worker));
}
