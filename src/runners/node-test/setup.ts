/**
 * A test file's child process, the part of fast-test-db/node-test (index.ts) that every file runs
 * before it loads: its database cloned (or reused) and its URL exported. With a parent's global
 * setup, from the handoff; without (Node 20: only children import the module), a run of its own
 * of one file, on the server the `node --test` process's children share.
 */
import { mkdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { withClient } from '../../engines/connect.js';
import { RUN_SCOPED_NOTE } from '../../core/fingerprint.js';
import { loadConfigFile, resolveAdapter } from '../../options/config.js';
import { buildContext, type Context, withOptions } from '../../options/context.js';
import { SERVER_ENV } from '../../options/handoff.js';
import { takeLease } from '../../server/keeper/leases.js';
import type { TestDatabase } from '../../types.js';
import { runBanner, serverSource } from '../shared/banner.js';
import { prepareHandoff, runDir } from '../shared/global.js';
import { workerTarget, type Handoff, type WorkerTarget } from '../shared/handoff.js';
import { noSchemaNote, noteOnce } from '../shared/schema-note.js';
import { cloneFresh, ensureCloned, installWorker, runRoles, workerDatabase } from '../shared/worker.js';

/** Hooks of node:test's root test, so that they wrap every test of the file. */
export async function nodeTestHooks() {
  const t = await import('node:test');
  const wrap =
    (register: (fn: () => Promise<void>, options?: { timeout?: number }) => unknown) => (fn: () => Promise<unknown>, timeout?: number) =>
      void register(async () => void (await fn()), timeout === undefined ? undefined : { timeout });
  return { beforeAll: wrap(t.before), afterAll: wrap(t.after), beforeEach: wrap(t.beforeEach) };
}

/**
 * This process's part of the run, once its database is cloned: the URL exported to the app and the
 * hooks on node:test's root test. The process is one worker (a file, or every file with
 * --test-isolation=none): per-test isolation stays per test, anything else is per worker.
 */
export async function installNodeTestWorker(entry: Context, handoff: Handoff, target: WorkerTarget): Promise<void> {
  installWorker({
    ctx: entry,
    handoff: { ...handoff, isolation: handoff.isolation === 'test' ? 'test' : 'worker' },
    hooks: await nodeTestHooks(),
    target,
    appEnv: process.env,
  });
}

/** The mark (beside the run directory) that a file's process printed the run's banner. */
const BANNER_MARK = '.banner-printed-';
const SCOPED_MARK = '.run-scoped-noted-';

/** A child without a parent's global setup: its own run of one file. */
async function standaloneChild(entry: Context): Promise<Handoff> {
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

/** This file's database, ready before the file loads; one of its own run is dropped when the process ends. */
export async function childProcess(entry: Context): Promise<TestDatabase> {
  const handed = entry.handoff;
  const handoff = handed ?? (await standaloneChild(entry));
  // Without a parent's global setup, this process (one test file) names its own database.
  const target = workerTarget(handoff, handed ? entry.names.worker : `p${process.pid}`);
  const db = await workerDatabase(handoff, target);
  // Clone before the test file is even loaded: no hook ordering to get wrong.
  if (!handed || handoff.isolation === 'file') await cloneFresh(handoff, target.name);
  else await ensureCloned(handoff, target.name);
  await installNodeTestWorker(entry, handoff, target);
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
      void db.close().then(() => dropOwn(handoff, target.name));
    });
  }
  return db;
}

async function dropOwn(h: Handoff, name: string): Promise<void> {
  const { connector, markers, templates } = await runRoles(h);
  await withClient(connector, h.server, async (admin) => {
    const marker = await markers.readMarker(admin, name);
    if (marker && marker.kind === 'database') await templates.drop(admin, name, { force: true });
  });
}
