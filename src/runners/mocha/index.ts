/**
 * fast-test-db/mocha: `mocha --require fast-test-db/mocha` (or `require: ['fast-test-db/mocha']` in
 * .mocharc). Mocha takes from this one module its global fixtures (server and template, once, in
 * the main process) and its root hooks (the worker's database).
 *
 * - `--parallel`: each worker (MOCHA_WORKER_ID) gets its own clone; the URL is exported when the
 *   worker loads this module, before it loads any spec file. Root hooks run per file there, so
 *   isolation 'file' gives each file a fresh clone.
 * - serial: Mocha loads the spec files before the global setup runs, so the URL reaches the env
 *   var only after the app's modules were imported: the app must read it when it first connects,
 *   not at import. One database for the whole run; root hooks run once for all files there, so
 *   isolation 'file' clones afresh before the first test of each next file (connections still
 *   open on the old clone are ended: close the app's pool in the file's `after`).
 */
import { buildContext } from '../../options/context.js';
import { currentRun, startRun } from '../shared/global.js';
import { exportUrl, requireHandoff, workerTarget, type Handoff, type WorkerTarget } from '../shared/handoff.js';
import type { TestDatabase } from '../../types.js';
import { cloneFresh, ensureCloned, workerDatabase, workerPairing } from '../shared/worker.js';

export type { TestDatabase } from '../../types.js';

/** This process's context, read when Mocha loads this module: in the main process, and in each --parallel worker. */
const ctx = buildContext({}, { check: false });
let target: WorkerTarget | undefined;
/** The handle whose reset connection serves isolation 'test' for the files this process runs. */
let resetting: Promise<TestDatabase> | undefined;
/** The spec file of the last test, for isolation 'file' when one process runs several files. */
let lastFile: string | undefined;
/** CPU pairing of a numbered (--parallel) worker's sessions, as the other runners' setup files do it. */
let pairing: ReturnType<typeof workerPairing> | undefined;

/** The run's handoff: of the run this process started (a serial run), else the one its main process handed down. */
const handoffOf = (): Handoff | undefined => currentRun()?.handoff ?? ctx.handoff;

function prepare(): Handoff | undefined {
  const h = handoffOf();
  if (!h) return undefined;
  target ??= workerTarget(h, ctx.names.worker);
  exportUrl(h, target.url, process.env);
  return h;
}

// A parallel worker inherits the handoff from the main process's global setup.
prepare();

export async function mochaGlobalSetup(): Promise<void> {
  if (!currentRun()) await startRun();
  prepare();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await currentRun()?.teardown();
}

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    const h = prepare() ?? requireHandoff(ctx, 'mocha');
    lastFile = undefined;
    if (h.isolation === 'file') await cloneFresh(h, target!.name);
    else await ensureCloned(h, target!.name);
  },
  async beforeEach(this: { currentTest?: { file?: string } }): Promise<void> {
    const h = handoffOf() ?? requireHandoff(ctx, 'mocha');
    const file = this.currentTest?.file;
    // A serial run calls beforeAll once for all its files: the first test of each next file clones again.
    if (h.isolation === 'file' && lastFile !== undefined && file !== lastFile) await cloneFresh(h, target!.name);
    lastFile = file;
    if (h.cpus) await (pairing ??= workerPairing(ctx, h, target!)).beforeEach();
    if (h.isolation !== 'test') return;
    resetting ??= workerDatabase(h, target!);
    await (await resetting).reset();
  },
  async afterAll(): Promise<void> {
    const open = resetting;
    resetting = undefined;
    try {
      await pairing?.afterAll();
    } finally {
      if (open) await (await open).close();
    }
  },
};

/** This worker's database. The runner owns it: disposing the handle only closes it. */
export async function testDatabase(): Promise<TestDatabase> {
  const h = prepare() ?? requireHandoff(ctx, 'mocha');
  return workerDatabase(h, target!);
}
