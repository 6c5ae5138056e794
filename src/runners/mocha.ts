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
 *   not at import. One database for the whole run; 'file' isolation needs --parallel (a serial
 *   run with 'file' prints a warning).
 */
import { currentRun, startRun } from './global.js';
import { exportUrl, readHandoff, requireHandoff, workerTarget, type Handoff, type WorkerTarget } from './handoff.js';
import { cloneFresh, ensureCloned, Resetter, workerDatabase, type WorkerDatabase } from './worker.js';

let target: WorkerTarget | undefined;
let resetter: Resetter | undefined;
let warned = false;

/**
 * Serial Mocha runs root hooks once for the whole run, in its main process (parallel workers carry
 * MOCHA_WORKER_ID): isolation 'file' cannot give each file a fresh clone there, so say so rather
 * than let every file share one database in silence.
 */
export function serialFileWarning(h: Handoff, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (h.isolation !== 'file' || env.MOCHA_WORKER_ID !== undefined) return undefined;
  return "fast-test-db: isolation 'file' needs `mocha --parallel`; in a serial run every test file shares one database. Run with --parallel, or use isolation 'test' (emptied before each test).";
}

function prepare(): Handoff | undefined {
  const h = readHandoff();
  if (!h) return undefined;
  target ??= workerTarget(h);
  exportUrl(h, target.url);
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
    const h = prepare() ?? requireHandoff('mocha');
    const warning = warned ? undefined : serialFileWarning(h);
    if (warning) {
      warned = true;
      process.emitWarning(warning, { code: 'FAST_TEST_DB_MOCHA_SERIAL_FILE' });
    }
    if (h.isolation === 'file') await cloneFresh(h, target!.name);
    else await ensureCloned(h, target!.name);
  },
  async beforeEach(): Promise<void> {
    const h = requireHandoff('mocha');
    if (h.isolation !== 'test') return;
    resetter ??= new Resetter(h, target!.name);
    await resetter.reset();
  },
  async afterAll(): Promise<void> {
    await resetter?.close();
    resetter = undefined;
  },
};

/** This worker's database (name, url, connection, reset(), recreate()). */
export function testDatabase(): WorkerDatabase {
  const h = prepare() ?? requireHandoff('mocha');
  return workerDatabase(h, target);
}
