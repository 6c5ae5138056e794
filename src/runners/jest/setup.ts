/**
 * Jest setup file (`setupFilesAfterEnv`): runs in the worker before each test file. Exports this
 * worker's URL before the test file imports the app, and registers the hooks that clone or reset.
 */
import { FastTestDbError } from '../../errors.js';
import { buildContext } from '../../options/context.js';
import { expectRunner } from '../shared/current-runner.js';
import { requireHandoff } from '../shared/handoff.js';
import { installWorker, type Hook } from '../shared/worker.js';

// The worker's context: the run's main process checked the options and the env it inherited.
const ctx = buildContext({}, { check: false });
expectRunner('jest', "fast-test-db/jest's setup file", ctx.env);
const g = globalThis as { beforeAll?: Hook; afterAll?: Hook; beforeEach?: Hook };
if (!g.beforeAll || !g.afterAll || !g.beforeEach)
  throw new FastTestDbError(
    'BAD_OPTION',
    'fast-test-db/jest-setup found no Jest globals (beforeAll, beforeEach, afterAll)',
    'list it under setupFilesAfterEnv, not setupFiles, and keep injectGlobals on',
  );

installWorker({
  ctx,
  handoff: requireHandoff(ctx, 'jest'),
  hooks: { beforeAll: g.beforeAll, afterAll: g.afterAll, beforeEach: g.beforeEach },
  appEnv: process.env,
});
