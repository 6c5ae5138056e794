/**
 * One owned server per project and engine, shared by every process of a run. The first caller
 * starts it (through the keeper), later callers find its state file and join; each process holds
 * a lease (keeper/leases.ts) for as long as it lives.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { setImmediate } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { FastTestDbError } from '../errors.js';
import { here } from '../here.js';
import type { ServerContext } from './provider.js';
import type { ServerInfo } from '../types.js';
import { pauseHere } from '../util/debug-pause.js';
import { logger } from '../util/log.js';
import { sleep } from '../util/sleep.js';
import { removeEmptyDir, serverDir } from './keeper/dirs.js';
import { type KeeperPlan, type KeeperStatus, keeperFiles, PLAN_WRITTEN } from './keeper/files.js';
import { liveLeases, takeLease } from './keeper/leases.js';
import { reapLocked } from './keeper/reap.js';
import { removeDeadWritersCopies } from './keeper/leftover-copies.js';
import { type LaunchPlan, type PlanContext, startFailureReason } from './os/launch.js';
import { pidAlive, withFileLock } from './os/lock.js';
import { ensurePrivateDir } from './os/private-dir.js';
import { isKeeperOf } from './os/processes.js';
import { readJson, writeJson } from './os/shared-files.js';
import { retireCopy } from './os/warm-cache.js';

const log = logger('server');

/**
 * How often a keeper that is stopping is looked at: a run's end waits for it, and a signal to a
 * pid costs nothing next to the up to 50 ms a coarser step added to every run that stops its server.
 */
const EXIT_POLL_MS = 10;

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? res(addr.port) : rej(new Error('no port'))));
    });
  });
}

/** How to run the keeper: the built file next to us, or the TypeScript source through tsx in development. */
function keeperCommand(): string[] {
  const dir = here();
  for (const file of ['keeper.js', 'keeper.cjs']) {
    const p = join(dir, file);
    if (existsSync(p)) return [p];
  }
  const src = join(dir, 'server', 'keeper', 'keeper.ts');
  if (existsSync(src)) return ['--import', 'tsx', src];
  throw new FastTestDbError('PACKAGE_BROKEN', `the keeper script is missing next to ${dir}`, 'reinstall fast-test-db');
}

/**
 * An option key (a symbol: it never reaches a config file or the keeper) for a callback told where
 * a server that this call starts will listen, as soon as its port is chosen and before it answers,
 * or where the running server it joined listens: a runner's global setup hands that to its workers
 * while the server starts and the template is checked.
 */
export const ON_PLANNED = Symbol.for('fast-test-db.on-server-planned');
/** `joined`: the server was running already. */
export type PlannedListener = (expected: ServerInfo, joined?: boolean) => void;

const plannedListener = (req: OwnedServerRequest) => (req.context.options as { [ON_PLANNED]?: PlannedListener })[ON_PLANNED];

export interface OwnedServerRequest {
  engine: string;
  /** Anything that must differ for servers not to be shared (binary, options). */
  identity: unknown[];
  /** The entry's context: its options, how they resolved, and the env the keeper is started with. */
  context: ServerContext;
  plan(ctx: PlanContext): Promise<LaunchPlan>;
}

/** Joins the running server of this project, or starts one. The lease lasts until this process exits. */
export async function acquireOwnedServer(req: OwnedServerRequest): Promise<ServerInfo> {
  const dir = serverDir(req);
  const files = keeperFiles(dir);
  // The data root itself is the user's choice (or /dev/shm, the temp dir): made as asked, with its
  // parents; the two folders of ours below it are the ones checked.
  const makeDirs = () => (mkdirSync(dirname(dirname(dir)), { recursive: true }), ensurePrivateDir(dirname(dir)), ensurePrivateDir(dir));
  makeDirs();
  return withFileLock(
    files.lock,
    async () => {
      const state = readJson<ServerInfo>(files.state);
      const status = readJson<KeeperStatus>(files.status);
      if (state && status?.phase === 'running' && isKeeperOf(status.keeperPid, dir)) {
        takeLease(dir);
        log('joined %s server in %s', state.engine, dir);
        plannedListener(req)?.(state, true);
        return state;
      }
      if (status?.phase === 'stopping' && isKeeperOf(status.keeperPid, dir)) {
        // A keeper stopping its server: let it finish before starting anew.
        const deadline = Date.now() + 20_000;
        while (isKeeperOf(status.keeperPid, dir) && Date.now() < deadline) await sleep(EXIT_POLL_MS);
      }
      // Whatever is still here (a keeper whose starter died, a server whose keeper died, an initdb
      // still writing) is stopped before this folder is touched: never two servers on one data directory.
      await reapLocked(dir);
      removeDeadWritersCopies(req.context);
      return start(req, dir);
    },
    undefined,
    makeDirs,
  );
}

async function start(req: OwnedServerRequest, dir: string): Promise<ServerInfo> {
  const files = keeperFiles(dir);
  const { options, resolved, env } = req.context;
  const onPlanned = plannedListener(req);
  // Once a listener was told the port, every attempt keeps it: workers already have it in their URL.
  let announced = false;
  let port = await freePort();
  for (let attempt = 1; ; attempt++) {
    rmSync(files.state, { force: true });
    rmSync(files.status, { force: true });
    rmSync(files.log, { force: true });
    const began = Date.now();
    const announce = async (expected: ServerInfo) => {
      if (!onPlanned || announced) return;
      announced = true;
      onPlanned({ ...expected, stateDir: dir });
      // The listener's own awaits (the runner's global setup returning) run before the plan goes on.
      await setImmediate();
    };
    // Started before the plan is made, and told when it is written: Node's own start (0.07-0.2 s on a
    // 2-core machine, timed by hand) then runs beside the plan's work (a warm copy restored), not after it.
    const keeper = spawn(process.execPath, [...keeperCommand(), dir], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...env, FAST_TEST_DB_KEEPER: '1' },
    });
    keeper.unref();
    const told = keeper.stdin!;
    // A keeper that died before it was told (it could not start) is seen by keeperAlive below.
    told.on('error', () => undefined);
    let plan: LaunchPlan;
    try {
      plan = await req.plan({ dir, port, options, env, announce });
    } catch (e) {
      told.destroy(); // end of input without the word: it exits, having touched nothing
      throw e;
    }
    const keeperPlan: KeeperPlan = {
      init: plan.init,
      server: plan.server,
      stopSignal: plan.stopSignal,
      cleanup: plan.cleanup,
      snapshot: plan.snapshot,
      initCache: plan.initCache,
      reuse: resolved.reuse,
      idleTimeoutMs: resolved.idleTimeoutMs,
      graceMs: resolved.graceMs,
      project: process.cwd(),
    };
    writeJson(files.plan, keeperPlan);
    takeLease(dir);
    told.end(PLAN_WRITTEN);
    pauseHere('client-server-start');
    if (plan.expected) await announce(plan.expected);
    const keeperAlive = () => {
      const st = readJson<KeeperStatus>(files.status);
      return pidAlive(keeper.pid) && st?.phase !== 'failed' && st?.phase !== 'stopped';
    };
    const logTail = () => (existsSync(files.log) ? readFileSync(files.log, 'utf8').slice(-4000) : '');
    try {
      const whyNotStarted = (logText: string) => startFailureReason(logText, readJson<KeeperStatus>(files.status));
      const info = await plan.ready({ keeperAlive, logTail, whyNotStarted });
      // It holds the server's password: for our uid only (writeJson: 0600).
      writeJson(files.state, { ...info, stateDir: dir } satisfies ServerInfo);
      log('started %s %s in %d ms (dir %s)', info.engine, info.version, Date.now() - began, dir);
      return { ...info, stateDir: dir };
    } catch (e) {
      // Whatever this attempt left (a keeper, a half-started server) goes before the next one.
      await reapLocked(dir);
      if (e instanceof FastTestDbError && e.code === 'PORT_IN_USE' && attempt < 3 && !announced) {
        port = await freePort();
        continue;
      }
      if (plan.restoredFrom && attempt < 3) {
        log('start from the cached data directory failed; discarding it and starting afresh: %s', (e as Error).message);
        // Renamed aside first: another project's start may be copying it (the initdb copy is every project's).
        retireCopy(plan.restoredFrom);
        continue;
      }
      throw e;
    }
  }
}

/** Stops an owned server now (CLI `stop`, runner teardown), whatever leases remain. */
export async function stopOwnedServer(stateDir: string, timeoutMs = 20_000): Promise<boolean> {
  const status = readJson<KeeperStatus>(keeperFiles(stateDir).status);
  if (!status || !isKeeperOf(status.keeperPid, stateDir)) return false;
  process.kill(status.keeperPid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (pidAlive(status.keeperPid) && Date.now() < deadline) await sleep(EXIT_POLL_MS);
  return !pidAlive(status.keeperPid);
}

/**
 * Gives up this process's lease and stops the server at once if no other process holds one, under
 * the registry's lock so that nobody joins a server that is being stopped. Another run sharing the
 * server keeps it; the keeper stops it when that run ends.
 */
export async function releaseOwnedServer(stateDir: string): Promise<'stopped' | 'shared' | 'not-running'> {
  const files = keeperFiles(stateDir);
  rmSync(join(files.leases, String(process.pid)), { force: true });
  const result = await withFileLock(files.lock, async () => {
    if (liveLeases(stateDir).length > 0) return 'shared' as const;
    // Said here, under the lock: the keeper then stops without asking for the lock this holds.
    const status = readJson<KeeperStatus>(files.status);
    if (status && isKeeperOf(status.keeperPid, stateDir)) writeJson(files.status, { ...status, phase: 'stopping' });
    return (await stopOwnedServer(stateDir)) ? ('stopped' as const) : ('not-running' as const);
  });
  if (result !== 'shared') removeEmptyDir(stateDir);
  return result;
}
