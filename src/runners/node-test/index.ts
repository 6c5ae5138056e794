/**
 * fast-test-db/node-test: for `node --import fast-test-db/node-test --test --test-concurrency=2`.
 *
 * node:test runs every test file in its own child process. The module is imported in each child
 * before the test file, and finishes (top-level await) before the file imports the app:
 * - When a parent process already ran the global setup (Node versions that apply --import to the
 *   test runner process too, or a wrapper calling startRun), the child only clones or reuses its
 *   worker's database, as the Jest and Vitest setup files do.
 * - Otherwise (Node 20: only children import it), each child joins the project's server, builds the
 *   template if no other child has (one build, under a lock), and gets a fresh clone of its own,
 *   dropped when it exits. The server is leased on behalf of the `node --test` process, so it stays
 *   up between files and stops when the whole run ends (unless `reuse`).
 * With isolation 'test', every test starts from an emptied database (a root `beforeEach`).
 */
import { FastTestDbError } from '../../errors.js';
import { buildContext } from '../../options/context.js';
import type { TestDatabase } from '../../types.js';
import { expectRunner } from '../shared/current-runner.js';
import { runnerProcess } from './global-setup.js';
import { childProcess } from './setup.js';

export type { TestDatabase } from '../../types.js';

/** This process's context, read when it imports this module (the runner process, or one file's child). */
const entry = buildContext({}, { check: false });

// Under another runner this module would start a run of its own beside that runner's.
expectRunner('node-test', 'fast-test-db/node-test', entry.env);

const isChild = entry.env.NODE_TEST_CONTEXT !== undefined;
const isRunner = !isChild && process.execArgv.some((a) => a === '--test' || a.startsWith('--test='));
// --test-isolation=none (Node 22.8+) runs every file inside the runner process: it is its own worker.
const inProcess = isRunner && process.execArgv.some((a) => /^--(experimental-)?test-isolation=none$/.test(a));

const db = isRunner ? await runnerProcess(entry, inProcess) : await childProcess(entry);

/** This file's database. The runner owns it: disposing the handle only closes it. */
export async function testDatabase(): Promise<TestDatabase> {
  if (db) return db;
  throw new FastTestDbError(
    'BAD_OPTION',
    'testDatabase() from fast-test-db/node-test was called in the test runner process, which has no database of its own',
    'call it inside a test file',
  );
}
