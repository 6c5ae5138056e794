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
import { mkdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfigFile, resolveAdapter } from '../../options/config.js';
import { buildContext, withOptions } from '../../options/context.js';
import { SERVER_ENV } from '../../options/handoff.js';
import { FastTestDbError } from '../../errors.js';
import { RUN_SCOPED_NOTE } from '../../core/fingerprint.js';
import { takeLease } from '../../server/keeper/leases.js';
import { expectRunner } from '../shared/current-runner.js';
import { noSchemaNote, noteOnce } from '../shared/schema-note.js';
import { runBanner, serverSource } from '../shared/banner.js';
import { currentRun, prepareHandoff, runDir, startRun } from '../shared/global.js';
import { workerTarget, type Handoff } from '../shared/handoff.js';
import type { TestDatabase } from '../../types.js';
import { cloneFresh, ensureCloned, installWorker, runDialect, workerDatabase } from '../shared/worker.js';

export type { TestDatabase } from '../../types.js';
import { withClient } from '../../engines/connect.js';

/** This process's context, read when it imports this module (the runner process, or one file's child). */
const entry = buildContext({}, { check: false });

// Under another runner this module would start a run of its own beside that runner's.
expectRunner('node-test', 'fast-test-db/node-test', entry.env);

const isChild = entry.env.NODE_TEST_CONTEXT !== undefined;
const isRunner = !isChild && process.execArgv.some((a) => a === '--test' || a.startsWith('--test='));

/** Hooks of node:test's root test, so that they wrap every test of the file. */
async function nodeTestHooks() {
  const t = await import('node:test');
  const wrap =
    (register: (fn: () => Promise<void>, options?: { timeout?: number }) => unknown) => (fn: () => Promise<unknown>, timeout?: number) =>
      void register(async () => void (await fn()), timeout === undefined ? undefined : { timeout });
  return { beforeAll: wrap(t.before), afterAll: wrap(t.after), beforeEach: wrap(t.beforeEach) };
}

/** The mark (beside the run directory) that a file's process printed the run's banner. */
const BANNER_MARK = '.banner-printed-';
const SCOPED_MARK = '.run-scoped-noted-';

/** A child without a parent's global setup: its own run of one file. */
async function standaloneChild(): Promise<Handoff> {
  const { file, config: fileConfig } = await loadConfigFile();
  const config = await resolveAdapter(fileConfig, entry.env);
  const given = buildContext(config, { env: entry.env });
  // The run of the `node --test` process, which every file's child shares.
  const runId = given.resolved.runId ?? `nt${process.ppid}`;
  const ctx = withOptions(given, { runId });
  const { quiet } = ctx.resolved;
  const dir = runDir(runId, ctx);
  mkdirSync(dir, { recursive: true });
  if (!quiet) noteOnce(dir, process.ppid, noSchemaNote(file, config, ctx.cwd));
  const { handoff, built, runScoped } = await prepareHandoff(ctx, runId, dir);
  const server = handoff.server;
  // The line every runner prints once per run: here the first file's process to get this far does.
  if (!quiet)
    noteOnce(dir, process.ppid, runBanner(server, { source: serverSource(ctx, false), template: handoff.template, built }), BANNER_MARK);
  if (runScoped && !quiet) noteOnce(dir, process.ppid, RUN_SCOPED_NOTE, SCOPED_MARK);
  if (server.owned && server.stateDir && !ctx.env[SERVER_ENV]) {
    // Keep the server for the whole `node --test` run, not just this file's process.
    takeLease(server.stateDir, process.ppid);
  }
  // One process per file: a database per process is a fresh clone per file whatever was asked.
  return { ...handoff, isolation: handoff.isolation === 'test' ? 'test' : 'file' };
}

let db: TestDatabase | undefined;

// --test-isolation=none (Node 22.8+) runs every file inside the runner process: it is its own worker.
const inProcess = isRunner && process.execArgv.some((a) => /^--(experimental-)?test-isolation=none$/.test(a));

if (isRunner) {
  if (!currentRun()) {
    const { file, config } = await loadConfigFile();
    const note = noSchemaNote(file, config, entry.cwd);
    if (note && !withOptions(entry, config).resolved.quiet) process.stderr.write(`${note}\n`);
  }
  const run = currentRun() ?? (await startRun());
  process.once('beforeExit', () => void run.teardown());
  if (inProcess) {
    const { handoff } = run;
    const target = workerTarget(handoff, entry.names.worker);
    db = await workerDatabase(handoff, target);
    await cloneFresh(handoff, target.name);
    installWorker({
      ctx: entry,
      handoff: { ...handoff, isolation: handoff.isolation === 'test' ? 'test' : 'worker' },
      hooks: await nodeTestHooks(),
      target,
      appEnv: process.env,
    });
  }
} else {
  const handed = entry.handoff;
  const handoff = handed ?? (await standaloneChild());
  // Without a parent's global setup, this process (one test file) names its own database.
  const target = workerTarget(handoff, handed ? entry.names.worker : `p${process.pid}`);
  db = await workerDatabase(handoff, target);
  // Clone before the test file is even loaded: no hook ordering to get wrong.
  if (!handed || handoff.isolation === 'file') await cloneFresh(handoff, target.name);
  else await ensureCloned(handoff, target.name);
  const hooks = await nodeTestHooks();
  installWorker({
    ctx: entry,
    handoff: { ...handoff, isolation: handoff.isolation === 'test' ? 'test' : 'worker' },
    hooks,
    target,
    appEnv: process.env,
  });
  if (!handed) {
    // After the file's own `after` hooks closed the app's pools, not before: dropping earlier
    // would end connections the app still holds.
    process.once('beforeExit', () => {
      rmSync(join(handoff.dir, target.name), { force: true });
      try {
        rmdirSync(handoff.dir); // the last file of the run leaves no directory behind
      } catch {
        // other files of the run still running
      }
      void db!.close().then(() => dropOwn(handoff, target.name));
    });
  }
}

async function dropOwn(h: Handoff, name: string): Promise<void> {
  const dialect = await runDialect(h);
  await withClient(dialect, h.server, async (admin) => {
    const marker = await dialect.readMarker(admin, name);
    if (marker && marker.kind === 'database') await dialect.drop(admin, name, { force: true });
  });
}

/** This file's database. The runner owns it: disposing the handle only closes it. */
export async function testDatabase(): Promise<TestDatabase> {
  if (db) return db;
  throw new FastTestDbError(
    'BAD_OPTION',
    'testDatabase() from fast-test-db/node-test was called in the test runner process, which has no database of its own',
    'call it inside a test file',
  );
}
