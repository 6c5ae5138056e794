/**
 * Jest setup file (`setupFilesAfterEnv`): runs in the worker before each test file. Exports this
 * worker's URL before the test file imports the app, and registers the hooks that clone or reset.
 *
 * Jest runs it again for every test file, in a fresh module registry: a later file of a worker
 * whose database is kept as it is exports what the first one noted (shared/notes.ts), and loads
 * nothing more. Anything else takes the whole path, which must finish registering hooks before
 * the test file loads: it is required synchronously, by path, into the test file's sandbox (an
 * `import()` would finish after the test file loaded; Node's own require would see another
 * process.env and other globals).
 */
import { createRequire } from 'node:module';
import { FastTestDbError } from '../../errors.js';
import { readHandoff } from '../../options/handoff.js';
import { setupFileEnv } from '../../options/workers.js';
import { expectRunner } from '../shared/current-runner.js';
import { exportForLaterFile } from '../shared/notes.js';
import { runnerFile } from '../shared/paths.js';
import type { Hook } from '../shared/worker.js';
import type { wholeSetup } from './whole-setup.js';

const { env, worker } = setupFileEnv();
expectRunner('jest', "fast-test-db/jest's setup file", env);
const g = globalThis as { beforeAll?: Hook; afterAll?: Hook; beforeEach?: Hook };
if (!g.beforeAll || !g.afterAll || !g.beforeEach)
  throw new FastTestDbError(
    'BAD_OPTION',
    'fast-test-db/jest-setup found no Jest globals (beforeAll, beforeEach, afterAll)',
    'list it under setupFilesAfterEnv, not setupFiles, and keep injectGlobals on',
  );

const given = readHandoff(env);
if (!given || !exportForLaterFile(given, worker, env)) {
  const file = runnerFile('jest-whole-setup', 'jest/whole-setup');
  // Jest hands its sandbox a node:module of its own, whose require loads into the test file's registry.
  const whole = createRequire(file)(file) as { wholeSetup: typeof wholeSetup };
  whole.wholeSetup({ beforeAll: g.beforeAll, afterAll: g.afterAll, beforeEach: g.beforeEach }, env);
}
