/**
 * The setup file's whole path (setup.ts takes it when the worker's later-file note does not do):
 * settles the handoff, exports this worker's URL, registers the hooks its isolation needs, and
 * makes the worker's database ready before the test file is imported.
 */
import { buildContext } from '../../options/context.js';
import { requireHandoff, type Handoff } from '../shared/handoff.js';
import { noteLaterFiles } from '../shared/notes.js';
import { settled } from '../shared/ready.js';
import { installWorker, readyForFile, type Hook } from '../shared/worker.js';

export async function wholeSetup(given: Handoff | undefined, hooks: { afterAll: Hook; beforeEach: Hook }): Promise<void> {
  // The worker's context: the run's main process checked the options and the env it inherited.
  const ctx = buildContext({}, { check: false });
  // The global setup may hand out a server that is still starting: wait for it here, once per file.
  const handoff = await settled(given ?? requireHandoff(ctx, 'vitest'));
  const target = installWorker({ ctx, handoff, hooks, appEnv: process.env });
  await readyForFile(handoff, target.name);
  noteLaterFiles(handoff, ctx.names.worker, target);
}
