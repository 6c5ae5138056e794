/**
 * Vitest setup file (`setupFiles`): runs in the worker before each test file. Reads the handoff
 * from `inject` (right in forks and threads alike), exports this worker's URL into the app's env
 * var, and makes the worker's database ready before the test file is imported (top-level await),
 * so that an app which connects or queries at import finds it. Then the hooks that reset.
 */
import { buildContext } from '../../options/context.js';
import { expectRunner } from '../shared/current-runner.js';
import { PROVIDE_KEY, requireHandoff, type Handoff } from '../shared/handoff.js';
import { settled } from '../shared/ready.js';
import { installWorker, readyForFile } from '../shared/worker.js';

// The worker's context: the run's main process checked the options and the env it inherited.
const ctx = buildContext({}, { check: false });
// Checked before loading Vitest, which outside a Vitest run fails with its own internals' words.
expectRunner('vitest', "fast-test-db/vitest's setup file", ctx.env);
const { afterAll, beforeEach, inject } = await import('vitest');
// The global setup may hand out a server that is still starting: wait for it here, once per file.
const handoff = await settled(((inject as (key: string) => unknown)(PROVIDE_KEY) as Handoff | undefined) ?? requireHandoff(ctx, 'vitest'));
const target = installWorker({ ctx, handoff, hooks: { afterAll, beforeEach }, appEnv: process.env });
await readyForFile(handoff, target.name);
