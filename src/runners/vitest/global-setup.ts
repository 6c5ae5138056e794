/**
 * Vitest `globalSetup`: runs once in Vitest's main process, also across watch-mode re-runs. Hands
 * the server and template to the workers both by `provide` (read with `inject`) and by env var.
 */
import type { TestProject } from 'vitest/node';
import { PROVIDE_KEY, type Handoff } from '../shared/handoff.js';
import { startRun } from '../shared/global.js';
import { noteUntested } from '../../util/tested.js';
import { runnerDefaultWorkers } from '../shared/serial.js';
import { vitestFiles } from './index.js';
import { withoutSetupFile } from './lone-worker.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  noteUntested('vitest', project.vitest.version);
  // As Vitest counts them (resolveMaxWorkers): the project's, the run's, else its default.
  const { config } = project;
  const workers = config.maxWorkers || project.vitest.config.maxWorkers || runnerDefaultWorkers(config.watch);
  // A lone worker may run without our setup file, which needs the handoff whole: a joined server's
  // template checked first. Any one worker waits, also where lone-worker.ts then keeps the setup file
  // (its other conditions read the handoff, which does not exist yet): a check's 50-80 ms at most.
  const run = await startRun({}, { cwd: config.root, early: workers === 1 ? 'started' : 'always', workers });
  (project.provide as (key: string, value: Handoff) => void)(PROVIDE_KEY, run.handoff);
  // A re-run starts from the template again; server and template stay.
  project.onTestsRerun(() => run.resetRun());
  const restore = await withoutSetupFile(project, run, workers, vitestFiles().setupFile);
  return () => {
    restore?.();
    return run.teardown();
  };
}
