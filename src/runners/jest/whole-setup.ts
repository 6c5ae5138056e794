/**
 * The setup file's whole path (setup.ts takes it when the worker's later-file note does not do):
 * exports this worker's URL, registers the hooks that make its database ready, and notes what the
 * worker's later files export once it is. An entry of its own (dist/runners/jest-whole-setup.cjs),
 * required by path, so that a later file loads none of it.
 */
import { buildContext } from '../../options/context.js';
import { requireHandoff, workerTarget } from '../shared/handoff.js';
import { noteLaterFiles } from '../shared/notes.js';
import { ensureCloned, installWorker, type RunnerHooks, type Hook } from '../shared/worker.js';

/** `hooks` are the test file's Jest globals and `env` its process.env, which Jest makes per file. */
export function wholeSetup(hooks: RunnerHooks & { beforeAll: Hook }, env: NodeJS.ProcessEnv): void {
  // The worker's context: the run's main process checked the options and the env it inherited.
  const ctx = buildContext({}, { check: false });
  const handoff = requireHandoff(ctx, 'jest');
  const target = installWorker({ ctx, handoff, hooks, appEnv: env });
  // Registered after installWorker's own beforeAll, which makes the database ready (or fails the file).
  hooks.beforeAll(async () => noteLaterFiles(handoff, ctx.names.worker, target));
}

/** A first file's database when its clone ahead failed: this worker clones it, as a first file does. */
export async function cloneForFile(): Promise<void> {
  const ctx = buildContext({}, { check: false });
  const handoff = requireHandoff(ctx, 'jest');
  await ensureCloned(handoff, workerTarget(handoff, ctx.names.worker).name);
}
