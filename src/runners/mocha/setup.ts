/**
 * Mocha's root hooks and the worker side of fast-test-db/mocha (index.ts): this process's
 * database, its URL exported when the module loads (a --parallel worker) or once the global setup
 * ran (a serial run), cloned, emptied or paired around each file and test.
 */
import { buildContext } from '../../options/context.js';
import { currentRun } from '../shared/global.js';
import { exportUrl, requireHandoff, workerTarget, type Handoff, type WorkerTarget } from '../shared/handoff.js';
import type { TestDatabase } from '../../types.js';
import { cloneFresh, ensureCloned, workerDatabase, workerPairing } from '../shared/worker.js';

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

/** The run's handoff, with this worker's URL exported where the app reads it; undefined before the run began. */
export function prepare(): Handoff | undefined {
  const h = handoffOf();
  if (!h) return undefined;
  target ??= workerTarget(h, ctx.names.worker);
  exportUrl(h, target.url, process.env);
  return h;
}

// A parallel worker inherits the handoff from the main process's global setup.
prepare();

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
