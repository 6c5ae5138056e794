/**
 * The worker half shared by every runner: make sure this worker's database exists (cloned from the
 * run's template), give a file a fresh one, or empty it before a test. Only template clones and
 * drops of databases carrying our marker happen here.
 */
import { clearInterval, setInterval } from 'node:timers';
import type { ServerRoles, SqlClient } from '../../engines/engine.js';
import { engineFor } from '../../engines/index.js';
import { FastTestDbError, messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import type { TestDatabase } from '../../types.js';
import { Database } from '../../core/handle.js';
import { recreateDatabase } from '../../core/recreate.js';
import { workerTarget, type Handoff, type WorkerTarget } from './handoff.js';
import { exportUrl } from './export-url.js';
import { alreadyCloned, awaitAhead, forgetClone, noteClone, WORKER_WAIT_MS } from './notes.js';
import { withClient } from '../../engines/connect.js';
import { settled } from './ready.js';
import { pairCpu, type CpuPairing } from './cpu-pairing.js';
import type { Context } from '../../options/context.js';
import { joinInvocation } from '../../core/users.js';

const log = logger('runner');

/** The roles of the run's engine, cloning as the run was told (a hand-made handoff without it: the default). */
export function runRoles(h: Handoff): Promise<ServerRoles> {
  return engineFor(h.engine).load({ cloneStrategy: h.cloneStrategy ?? 'file_copy' });
}

async function withAdmin<T>(h: Handoff, fn: (roles: ServerRoles, admin: SqlClient) => Promise<T>): Promise<T> {
  const roles = await runRoles(h);
  return withClient(roles.connector, h.server, (admin) => fn(roles, admin));
}

/**
 * Clones the template into `name`, replacing our own leftover of that name (connections to it are
 * ended: a previous test file of this worker may have left a pool open). Never touches a database
 * that is not ours.
 */
export async function cloneFresh(pending: Handoff, name: string): Promise<void> {
  const h = await settled(pending);
  joinInvocation(h.main);
  const started = performance.now();
  await withAdmin(h, (roles, admin) =>
    recreateDatabase(admin, { roles, server: h.server, template: h.template, name, run: h.run, force: true }),
  );
  noteClone(h, name);
  log('cloned %s from %s in %d ms', name, h.template, Math.round(performance.now() - started));
}

/** Per-worker isolation: clone once per run (unless the main process is cloning it ahead: wait for that), then keep. */
export async function ensureCloned(h: Handoff, name: string): Promise<void> {
  if (!alreadyCloned(h, name) && !(await awaitAhead(h, name))) await cloneFresh(h, name);
}

/**
 * The test file now loading, and whether its fresh clone (isolation 'file') was made: the setup
 * file's hook and an adapter's *TestDb() called from the test file must clone once between them,
 * whichever runs first. Kept on the global object, which is per file in Jest and shared by a
 * module registry that Vitest may keep across files.
 */
const FILE = Symbol.for('fast-test-db.current-file');
type FileState = { name: string; cloned: boolean };
const fileState = () => (globalThis as { [FILE]?: FileState })[FILE];

/** This worker's database ready for the file now running: fresh once per file with isolation 'file', else cloned once per run. */
export async function readyForFile(h: Handoff, name: string): Promise<void> {
  if (h.isolation !== 'file') return ensureCloned(h, name);
  const state = fileState();
  if (state?.name === name && state.cloned) return;
  await cloneFresh(h, name);
  if (state?.name === name) state.cloned = true;
}

/** A runner's hook registration; `timeout` (ms) is the hook's own, as Jest's and Vitest's second argument. */
export type Hook = (fn: () => Promise<unknown>, timeout?: number) => void;

/** `work`, or an error of ours once it took WORKER_WAIT_MS. */
export function withinWorkerWait<T>(h: Handoff, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new FastTestDbError(
            'SERVER_START_FAILED',
            `this worker waited ${WORKER_WAIT_MS / 60_000} min for its database ${h.pending ? "(the run's server was still starting or building the template)" : '(its clone did not finish)'}`,
            'see what the global setup printed; DEBUG=fast-test-db:* shows each step; a migrate slower than this needs migrateTimeoutMs and a server that starts sooner (fast-test-db start before the run)',
          ),
        ),
      WORKER_WAIT_MS,
    );
    timer.unref();
  });
  return Promise.race([work(), late]).finally(() => clearTimeout(timer));
}

export interface RunnerHooks {
  beforeAll?: Hook;
  afterAll: Hook;
  beforeEach: Hook;
}

export interface WorkerSetup {
  /** The worker's entry context: its worker id, whether CPU pairing is on. */
  ctx: Context;
  handoff: Handoff;
  hooks: RunnerHooks;
  /** This worker's database; by default the one of the context's worker id. */
  target?: WorkerTarget;
  /** Where the app reads its URL: the process's live environment. */
  appEnv: NodeJS.ProcessEnv;
}

/**
 * What a runner's setup file does in each worker (or test file): export the URL right away, so
 * that app modules imported by the test file read it, and register the hooks that create or empty
 * the database before the first test touches it.
 */
export function installWorker({ ctx, handoff: h, hooks, target = workerTarget(h, ctx.names.worker), appEnv }: WorkerSetup): WorkerTarget {
  exportUrl(h, target, appEnv);
  (globalThis as { [FILE]?: FileState })[FILE] = { name: target.name, cloned: false };
  // Without a beforeAll hook the caller awaits readyForFile() itself, before the test file loads.
  if (hooks.beforeAll) {
    const register = hooks.beforeAll;
    // Its own timeout, past WORKER_WAIT_MS: the user's hook timeout is for the user's hooks.
    const beforeAll = (work: () => Promise<unknown>) => register(() => withinWorkerWait(h, work), WORKER_WAIT_MS + 30_000);
    if (h.isolation === 'file') beforeAll(() => readyForFile(h, target.name));
    else if (!alreadyCloned(h, target.name)) beforeAll(() => ensureCloned(h, target.name));
    // A server still starting (ready.ts): no test runs before it answers, or before its failure shows.
    else if (h.pending) beforeAll(() => settled(h));
  }
  if (h.cpus) {
    const pairing = workerPairing(ctx, h, target);
    hooks.beforeEach(pairing.beforeEach);
    hooks.afterAll(pairing.afterAll);
  }
  if (h.isolation === 'test') {
    // One handle per file: its reset connection makes each reset one round of statements.
    let db: Promise<TestDatabase> | undefined;
    hooks.beforeEach(async () => (await (db ??= workerDatabase(h, target))).reset());
    hooks.afterAll(async () => {
      const open = db;
      db = undefined;
      if (open) await (await open).close();
    });
  }
  return target;
}

/** How often a worker looks for sessions that became busy, during its tests and before each. */
const LOOK_EVERY_MS = 100;

/**
 * CPU pairing for the app's own connections (src/cpu-pairing.ts): the sessions the app opened on
 * the worker's database that did real work are paired, with this worker's thread, for the
 * worker's life. The worker looks before each test and every LOOK_EVERY_MS while tests run (a
 * loop of inserts is paired within that, not at the next test); a look at PostgreSQL reads /proc
 * and sends no query. The timer is Node's own, which a test's fake timers do not stop. The
 * runner calls `beforeEach` before every test and `afterAll` after each file (once per run for
 * a serial Mocha run), after which the next `beforeEach` starts looking again.
 */
export function workerPairing(ctx: Context, h: Handoff, target: WorkerTarget): { beforeEach(): Promise<void>; afterAll(): Promise<void> } {
  let db: Database | undefined;
  let paired: Promise<CpuPairing | undefined> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const look = async () => {
    paired ??= workerDatabase(h, target)
      .then((d) => pairCpu(d.server, (db = d), ctx, 'busy'))
      .catch((e: unknown) => void log('no CPU pairing: %s', messageOf(e)));
    const pairing = await paired;
    // None for this worker (no worker number, more workers than CPUs, an engine without it): the
    // timer stops until the next file, whose first beforeEach asks again.
    if (!pairing) return clearInterval(timer);
    await pairing.refresh();
  };
  return {
    async beforeEach() {
      timer ??= setInterval(() => void look(), LOOK_EVERY_MS).unref();
      await look();
    },
    async afterAll() {
      clearInterval(timer);
      timer = undefined;
      const [open, handle] = [paired, db];
      paired = undefined;
      db = undefined;
      try {
        await (await open)?.end();
      } finally {
        await handle?.close();
      }
    },
  };
}

/**
 * This worker's database as a TestDatabase, for tests that want to reset or recreate it
 * themselves. The runner owns the database: disposing the handle only closes it (see TestDatabase).
 */
export async function workerDatabase(pending: Handoff, target: WorkerTarget): Promise<Database> {
  // A server handed out while it starts: the template and seeded tables are known once it is ready.
  const h = await settled(pending);
  joinInvocation(h.main);
  const roles = await runRoles(h);
  return new Database({
    roles,
    server: h.server,
    name: target.name,
    url: target.url,
    // The global setup built (or found) the template; this handle only uses it.
    template: { name: h.template, fingerprint: h.fingerprint, built: false },
    seeded: h.seeded,
    run: h.run,
    owner: 'runner',
    onCloned: () => noteClone(h, target.name),
    onDropped: () => forgetFileClone(h, target.name),
  });
}

/** After a test dropped the worker's database itself: the next file of this run clones it again. */
function forgetFileClone(h: Handoff, name: string): void {
  forgetClone(h, name);
  const state = fileState();
  if (state?.name === name) state.cloned = false;
}
