/**
 * Mocha's root hooks and the worker side of fast-test-db/mocha (index.ts): this process's
 * database, its URL exported when the module loads (a --parallel worker) or once the global setup
 * ran (a serial run), cloned, emptied or paired around each file and test.
 */
import { buildContext } from '../../options/context.js';
import { currentRun } from '../shared/global.js';
import { requireHandoff, workerTarget, type Handoff } from '../shared/handoff.js';
import { exportUrl } from '../shared/export-url.js';
import { mochaFiles } from '../../state.js';
import type { TestDatabase } from '../../types.js';
import { cloneFresh, ensureCloned, workerDatabase, workerPairing } from '../shared/worker.js';

/** This process's context, read when Mocha loads this module: in the main process, and in each --parallel worker. */
const ctx = buildContext({}, { check: false });
/** The run's handoff: of the run this process started (a serial run), else the one its main process handed down. */
const handoffOf = (): Handoff | undefined => currentRun()?.handoff ?? ctx.handoff;

/** The run's handoff, with this worker's URL exported where the app reads it; undefined before the run began. */
export function prepare(): Handoff | undefined {
  const h = handoffOf();
  if (!h) return undefined;
  mochaFiles.target ??= workerTarget(h, ctx.names.worker);
  exportUrl(h, mochaFiles.target, process.env);
  return h;
}

// A parallel worker inherits the handoff from the main process's global setup.
prepare();

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    const h = prepare() ?? requireHandoff(ctx, 'mocha');
    mochaFiles.lastFile = undefined;
    if (h.isolation === 'file') await cloneFresh(h, mochaFiles.target!.name);
    else await ensureCloned(h, mochaFiles.target!.name);
  },
  async beforeEach(this: { currentTest?: { file?: string } }): Promise<void> {
    const h = handoffOf() ?? requireHandoff(ctx, 'mocha');
    const file = this.currentTest?.file;
    // A serial run calls beforeAll once for all its files: the first test of each next file clones again.
    if (h.isolation === 'file' && mochaFiles.lastFile !== undefined && file !== mochaFiles.lastFile)
      await cloneFresh(h, mochaFiles.target!.name);
    mochaFiles.lastFile = file;
    if (h.cpus) await (mochaFiles.pairing ??= workerPairing(ctx, h, mochaFiles.target!)).beforeEach();
    if (h.isolation !== 'test') return;
    mochaFiles.resetting ??= workerDatabase(h, mochaFiles.target!);
    await (await mochaFiles.resetting).reset();
  },
  async afterAll(): Promise<void> {
    const open = mochaFiles.resetting;
    mochaFiles.resetting = undefined;
    try {
      await mochaFiles.pairing?.afterAll();
    } finally {
      if (open) await (await open).close();
    }
  },
};

/** This worker's database. The runner owns it: disposing the handle only closes it. */
export async function testDatabase(): Promise<TestDatabase> {
  const h = prepare() ?? requireHandoff(ctx, 'mocha');
  return workerDatabase(h, mochaFiles.target!);
}
