/**
 * Jest setup file (`setupFilesAfterEnv`): runs in the worker before each test file. Exports this
 * worker's URL before the test file imports the app, and registers the hooks that clone or reset.
 *
 * Jest runs it again for every test file, in a fresh module registry: a later file of a worker
 * whose database is kept as it is exports what the first one noted (shared/notes.ts), and loads
 * nothing more; so does a first file whose database the main process clones ahead
 * (shared/clone-ahead.ts), and its first test waits for that clone to end. Anything else takes
 * the whole path, which must finish registering hooks before the test file loads: it is required
 * synchronously, by path, into the test file's sandbox (an `import()` would finish after the test
 * file loaded; Node's own require would see another environment and other globals).
 */
import { createRequire } from 'node:module';
import { FastTestDbError } from '../../errors.js';
import { readHandoff } from '../../options/handoff.js';
import { setupFileEnv } from '../../options/workers.js';
import { expectRunner } from '../shared/current-runner.js';
import { exportForLaterFile, WORKER_WAIT_MS } from '../shared/notes.js';
import { runnerFile } from '../shared/paths.js';
import type { Hook } from '../shared/worker.js';

const { env, worker } = setupFileEnv();
expectRunner('jest', "fast-test-db/jest's setup file", env);
const g = globalThis as { beforeAll?: Hook; afterAll?: Hook; beforeEach?: Hook };
if (!g.beforeAll || !g.afterAll || !g.beforeEach)
  throw new FastTestDbError(
    'BAD_OPTION',
    'fast-test-db/jest-setup found no Jest globals (beforeAll, beforeEach, afterAll)',
    'list it under setupFilesAfterEnv, not setupFiles, and keep injectGlobals on',
  );

const hooks = { beforeAll: g.beforeAll, afterAll: g.afterAll, beforeEach: g.beforeEach };
const given = readHandoff(env);
const later = given ? exportForLaterFile(given, worker, env) : false;
if (later === false) whole().wholeSetup(hooks, env);
else if (later !== true)
  // Before the first test, the clone ahead's end; where it failed (the main process logs why), this worker's own clone.
  hooks.beforeAll(async () => (await later) || whole().cloneForFile(), WORKER_WAIT_MS + 30_000);

function whole(): typeof import('./whole-setup.js') {
  const file = runnerFile('jest-whole-setup', 'jest/whole-setup');
  // Jest hands its sandbox a node:module of its own, whose require loads into the test file's registry.
  return createRequire(file)(file) as typeof import('./whole-setup.js');
}
