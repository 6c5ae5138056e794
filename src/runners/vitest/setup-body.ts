/**
 * The Vitest setup file's body (setup.ts imports it): runs in the worker before each test file.
 * Reads the handoff from `inject` (right in forks and threads alike), exports this worker's URL
 * into the app's env var, and makes the worker's database ready before the test file is imported
 * (top-level await), so that an app which connects or queries at import finds it. Then the hooks
 * that reset.
 *
 * Vitest runs it again for every test file, in a fresh process or context: a later file of a
 * worker whose database is kept as it is exports what the first one noted (shared/notes.ts), and
 * loads nothing more; so does a first file whose database the main process clones ahead
 * (shared/clone-ahead.ts), once that clone ends.
 */
import { pathToFileURL } from 'node:url';
import { expectRunner } from '../shared/current-runner.js';
import { exportForLaterFile } from '../shared/notes.js';
import { PROVIDE_KEY } from '../../options/handoff.js';
import { setupFileEnv } from '../../options/workers.js';
import { runnerFile } from '../shared/paths.js';
import type { Handoff } from '../shared/handoff.js';

// Checked before loading Vitest, which outside a Vitest run fails with its own internals' words.
const { env, worker } = setupFileEnv();
expectRunner('vitest', "fast-test-db/vitest's setup file", env);
const { afterAll, beforeEach, inject } = await import('vitest');
const given = (inject as (key: string) => unknown)(PROVIDE_KEY) as Handoff | undefined;
if (!given || !(await exportForLaterFile(given, worker, env))) {
  // By path: built alone (scripts/entries.json), this file would otherwise hold the whole path too.
  const file = pathToFileURL(runnerFile('vitest-whole-setup', 'vitest/whole-setup', ['.js'])).href;
  const { wholeSetup } = (await import(file)) as typeof import('./whole-setup.js');
  await wholeSetup(given, { afterAll, beforeEach });
}
