/**
 * The `node --test` process's part of fast-test-db/node-test (index.ts), where Node applies
 * --import to it too: the run's global setup, torn down when the process has nothing left to do;
 * with --test-isolation=none (Node 22.8+) every file runs in this process, which is then its own
 * worker.
 */
import { loadConfigFile } from '../../options/config.js';
import { type Context, withOptions } from '../../options/context.js';
import type { TestDatabase } from '../../types.js';
import { currentRun, startRun } from '../shared/global.js';
import { workerTarget } from '../shared/handoff.js';
import { noSchemaNote } from '../shared/schema-note.js';
import { cloneFresh, workerDatabase } from '../shared/worker.js';
import { installNodeTestWorker } from './setup.js';

/** Starts (or joins) the run; in process, also this process's database, which it returns. */
export async function runnerProcess(entry: Context, inProcess: boolean): Promise<TestDatabase | undefined> {
  if (!currentRun()) {
    const { file, config } = await loadConfigFile();
    const note = noSchemaNote(file, config, entry.cwd);
    if (note && !withOptions(entry, config).resolved.quiet) process.stderr.write(`${note}\n`);
  }
  const run = currentRun() ?? (await startRun());
  process.once('beforeExit', () => void run.teardown());
  if (!inProcess) return undefined;
  const { handoff } = run;
  const target = workerTarget(handoff, entry.names.worker);
  const db = await workerDatabase(handoff, target);
  await cloneFresh(handoff, target.name);
  await installNodeTestWorker(entry, handoff, target);
  return db;
}
