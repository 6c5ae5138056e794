/**
 * One owned server per project and engine, shared by every process of a run. The first caller
 * starts it (through the keeper), later callers find its state file and join; each process holds
 * a lease (a file named after its pid) for as long as it lives.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pauseHere } from '../util/debug-pause.js';
import { here } from '../here.js';
import { FastTestDbError, isFastTestDbError } from '../errors.js';
import { logger } from '../util/log.js';
import type { Engine, ServerInfo, TestDatabaseOptions } from '../types.js';
import { keeperFiles, type KeeperPlan, type KeeperStatus } from './keeper/files.js';
import { listDir, readJson, writeJson } from './os/shared-files.js';
import { type LaunchPlan, type PlanContext, startFailureReason } from './os/launch.js';
import { pidAlive, withFileLock } from './os/lock.js';
import { releaseSegment, segmentsOf } from './os/shared-memory.js';
import { defaultDataRoot } from './os/platform.js';
import { assertPrivate, ensurePrivateDir } from './os/private-dir.js';
import { removeDeadWritersCopies } from './keeper/stray-copies.js';
import { isKeeperOf, processesIn, signal, stopProcesses } from './os/processes.js';
import { sleep } from '../util/sleep.js';
import { DEFAULT_IDLE_TIMEOUT_MS, resolveOptions } from '../options/resolve.js';

const log = logger('server');

/** Where owned servers live: tmpfs when the machine has one. */
export function dataRoot(options: TestDatabaseOptions): { root: string; tmpfs: boolean } {
  const chosen = resolveOptions(options).dataRoot;
  if (chosen) return { root: resolve(chosen), tmpfs: chosen.startsWith('/dev/shm') };
  const chosenByPlatform = defaultDataRoot(process.platform, { tmpdir: tmpdir(), hasDevShm: existsSync('/dev/shm') });
  if (!chosenByPlatform.tmpfs) log('no /dev/shm on this machine: data goes to %s, which is probably a disk', chosenByPlatform.root);
  return chosenByPlatform;
}

/** The directory holding every server of this user, for `clean` and `doctor` too. */
export function serversRoot(options: TestDatabaseOptions): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return join(dataRoot(options).root, `fast-test-db-${uid}`);
}

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

const leased = new Set<string>();

/**
 * Marks `pid` (this process by default) as a client of the server in `dir`: the keeper keeps the
 * server while any client lives. A runner may lease on behalf of its parent (node --test).
 */
export function takeLease(dir: string, pid = process.pid): void {
  const leases = keeperFiles(dir).leases;
  assertPrivate(dir);
  // Not `mkdir -p`: the server's folder exists (we hold or just left its lock); one made here would be unchecked.
  try {
    mkdirSync(leases);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const file = join(leases, String(pid));
  writeFileSync(file, '');
  if (pid === process.pid && !leased.has(dir)) {
    leased.add(dir);
    if (leased.size === 1)
      process.once('exit', () => {
        for (const d of leased) {
          rmSync(join(keeperFiles(d).leases, String(process.pid)), { force: true });
          stopIfAbandoned(d);
        }
      });
  }
}

/**
 * Run by a client as it exits: when the server's keeper was killed and no other client is left,
 * nobody else would stop the server, so the last client does (a signal, which needs no waiting).
 * What the server leaves on disk goes with the next run in this directory, or `clean`.
 */
function stopIfAbandoned(dir: string): void {
  try {
    const files = keeperFiles(dir);
    const status = readJson<KeeperStatus>(files.status);
    if (!status || isKeeperOf(status.keeperPid, dir)) return;
    if (liveLeases(dir).length > 0) return;
    const plan = readJson<KeeperPlan>(files.plan);
    signal(processesIn(dir, [status.serverPid]), plan?.stopSignal ?? 'SIGTERM');
  } catch {
    /* exiting anyway: the next run or clean finds what is left */
  }
}

function liveLeases(dir: string): number[] {
  const leases = keeperFiles(dir).leases;
  return listDir(leases)
    .map(Number)
    .filter((p) => p !== process.pid && pidAlive(p));
}

/**
 * An option key (a symbol: it never reaches a config file or the keeper) for a callback told where
 * a server that this call starts will listen, as soon as its port is chosen and before it answers:
 * a runner's global setup hands that to its workers while the server is still starting.
 */
export const ON_PLANNED = Symbol.for('fast-test-db.on-server-planned');
export type PlannedListener = (expected: ServerInfo) => void;

export interface OwnedServerRequest {
  engine: string;
  /** Anything that must differ for servers not to be shared (binary, options). */
  identity: unknown[];
  options: TestDatabaseOptions;
  plan(ctx: PlanContext): Promise<LaunchPlan>;
}

export function serverDir(req: Pick<OwnedServerRequest, 'engine' | 'identity' | 'options'>): string {
  const key = createHash('sha256')
    .update(JSON.stringify([process.cwd(), ...req.identity]))
    .digest('hex')
    .slice(0, 10);
  return join(serversRoot(req.options), `${req.engine}-${key}`);
}

// ---------------------------------------------------------------------------------------------
// The state of one server directory: the one definition the registry, `clean` and `doctor` share.

export type ServerStateName = 'starting' | 'running' | 'stopping' | 'orphaned' | 'stopped';

export interface OwnedServerEntry {
  dir: string;
  engine: Engine | 'unknown';
  /**
   * starting/running/stopping: a live keeper owns it (or a live process is setting it up);
   * orphaned: its keeper is gone and a server process or data is left;
   * stopped: nothing is left but bookkeeping files.
   */
  state: ServerStateName;
  /** The state in words, the same in `doctor`, `clean --dry-run` and `clean`. */
  summary: string;
  /** The project directory that started it (undefined for a directory without a plan). */
  project?: string;
  info?: ServerInfo;
  status?: KeeperStatus;
  /** Client processes still holding a lease. */
  leases: number[];
  /** Live processes of ours working in it (server, init commands), verified through /proc. */
  processes: number[];
  /** The server process, when it is among `processes`. */
  serverPid?: number;
  /** Since the last change of its status. */
  ageMs: number;
}

function lockOwner(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(keeperFiles(dir).lock, 'owner'), 'utf8'));
    return pid !== process.pid && pidAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What is alive and what is left in one server directory. */
export function serverState(dir: string): OwnedServerEntry {
  const files = keeperFiles(dir);
  const status = readJson<KeeperStatus>(files.status);
  const info = readJson<ServerInfo>(files.state);
  const plan = readJson<KeeperPlan>(files.plan);
  const name = basename(dir);
  const engine = name.startsWith('postgres-') ? 'postgres' : name.startsWith('mysql-') ? 'mysql' : 'unknown';
  let changed = Date.now();
  for (const f of [files.status, dir]) {
    try {
      changed = statSync(f).mtimeMs;
      break;
    } catch {
      /* try the next */
    }
  }
  const leases = listDir(files.leases)
    .map(Number)
    .filter((p) => pidAlive(p));
  const base = { dir, engine, project: plan?.project, info, status, leases, ageMs: Date.now() - changed } as const;
  const clients = plural(leases.length, 'client');
  if (status && isKeeperOf(status.keeperPid, dir)) {
    const phase = status.phase === 'running' && info ? 'running' : status.phase === 'stopping' ? 'stopping' : 'starting';
    const processes = status.serverPid && pidAlive(status.serverPid) ? [status.serverPid] : [];
    return { ...base, state: phase, processes, serverPid: processes[0], summary: `${phase} (keeper ${status.keeperPid}, ${clients})` };
  }
  const setter = lockOwner(dir);
  if (setter !== undefined && (!status || status.phase === 'stopped'))
    return { ...base, state: 'starting', processes: [], summary: `being set up by process ${setter}` };
  const processes = processesIn(dir, [status?.serverPid]);
  const serverPid = status?.serverPid !== undefined && processes.includes(status.serverPid) ? status.serverPid : undefined;
  const dataLeft = (plan?.cleanup ?? []).some((p) => existsSync(p));
  if (processes.length > 0) {
    const what = serverPid ? `server process ${serverPid} still runs` : `process ${processes.join(', ')} still runs in it`;
    return {
      ...base,
      state: 'orphaned',
      processes,
      serverPid,
      summary: `lost its keeper; ${what}${leases.length ? `, used by ${clients}` : ''}`,
    };
  }
  if (dataLeft) return { ...base, state: 'orphaned', processes, summary: 'lost its keeper; its data was left behind' };
  return { ...base, state: 'stopped', processes, summary: 'stopped; only its bookkeeping files are left' };
}

/** Every server directory of this user; only this project's (cwd) unless `all`. */
export function listOwnedServers(options: TestDatabaseOptions = {}, scope: { all?: boolean; project?: string } = {}): OwnedServerEntry[] {
  const root = serversRoot(options);
  const project = scope.project ?? process.cwd();
  const out: OwnedServerEntry[] = [];
  // Another user's folder (or a link) under our name is neither read nor cleaned: it is not ours.
  assertPrivate(root);
  for (const name of listDir(root).sort()) {
    // Only the registry's server directories (engine-hash); anything else there is not a server.
    if (!/^(postgres|mysql)-[0-9a-f]+$/.test(name)) continue;
    const dir = join(root, name);
    try {
      if (!lstatSync(dir).isDirectory()) continue;
      assertPrivate(dir);
    } catch (e) {
      if (isFastTestDbError(e)) throw e;
      continue;
    }
    const entry = serverState(dir);
    // A directory without a plan names no project: only `all` sees it.
    if (!scope.all && entry.project !== project) continue;
    out.push(entry);
  }
  return out;
}

/**
 * Stops whatever a dead keeper left in `dir` (its server, an init command) and removes its data.
 * The caller holds the directory's lock. A live keeper is asked to stop first (SIGTERM), and
 * killed if it does not: after this, nothing runs in `dir`, so no second server can ever share it.
 */
async function reapLocked(dir: string): Promise<void> {
  const files = keeperFiles(dir);
  const status = readJson<KeeperStatus>(files.status);
  const plan = readJson<KeeperPlan>(files.plan);
  if (status && isKeeperOf(status.keeperPid, dir)) await stopProcesses([status.keeperPid], 'SIGTERM', 20_000);
  const processes = processesIn(dir, [status?.serverPid]);
  const segments = segmentsOf(plan?.cleanup ?? []);
  if (processes.length > 0) {
    log('stopping %s left running in %s by a keeper that is gone', processes.join(', '), dir);
    await stopProcesses(processes, plan?.stopSignal ?? 'SIGTERM');
  }
  for (const seg of segments)
    if (await releaseSegment(seg, { creator: status?.serverPid, serverUid: plan?.server.uid }))
      log('removed the shared memory segment %d a killed server left', seg.id);
  for (const p of plan?.cleanup ?? []) rmSync(p, { recursive: true, force: true });
  // Everything else goes too, except the lock the caller holds.
  for (const name of listDir(dir)) if (join(dir, name) !== files.lock) rmSync(join(dir, name), { recursive: true, force: true });
}

/**
 * Removes a server directory whose keeper is gone: stops what it left running, removes its data and
 * then the directory itself. Re-reads the state under the lock; returns what it found there, so
 * that a server restarted meanwhile is left alone.
 */
export async function reapServer(dir: string): Promise<OwnedServerEntry> {
  const files = keeperFiles(dir);
  const entry = await withFileLock(
    files.lock,
    async () => {
      const now = serverState(dir);
      if (now.state === 'orphaned' || now.state === 'stopped') await reapLocked(dir);
      return now;
    },
    30_000,
  );
  removeEmptyDir(dir);
  return entry;
}

/** rmdir of a directory that may have been taken again meanwhile: only empty ones go. */
export function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
    rmdirSync(dirname(dir)); // the user's folder too, once no server is left in it
  } catch {
    /* not empty: someone uses it */
  }
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
        return state;
      }
      if (status?.phase === 'stopping' && isKeeperOf(status.keeperPid, dir)) {
        // A keeper stopping its server: let it finish before starting anew.
        const deadline = Date.now() + 20_000;
        while (isKeeperOf(status.keeperPid, dir) && Date.now() < deadline) await sleep(50);
      }
      // Whatever is still here (a keeper whose starter died, a server whose keeper died, an initdb
      // still writing) is stopped before this folder is touched: never two servers on one data directory.
      await reapLocked(dir);
      removeDeadWritersCopies(req.options);
      return start(req, dir);
    },
    undefined,
    makeDirs,
  );
}

/** How long a server outlives its last client when not reused: options, env, default. */
export function resolveGraceMs(options: TestDatabaseOptions): number {
  return resolveOptions(options).graceMs;
}

async function start(req: OwnedServerRequest, dir: string): Promise<ServerInfo> {
  const files = keeperFiles(dir);
  const reuse = resolveOptions(req.options).reuse;
  const onPlanned = (req.options as { [ON_PLANNED]?: PlannedListener })[ON_PLANNED];
  // Once a listener was told the port, every attempt keeps it: workers already have it in their URL.
  let announced = false;
  let port = await freePort();
  for (let attempt = 1; ; attempt++) {
    rmSync(files.state, { force: true });
    rmSync(files.status, { force: true });
    rmSync(files.log, { force: true });
    const began = Date.now();
    const announce = (expected: ServerInfo) => {
      if (!onPlanned || announced) return;
      announced = true;
      onPlanned({ ...expected, stateDir: dir });
    };
    const plan = await req.plan({ dir, port, options: req.options, announce });
    const keeperPlan: KeeperPlan = {
      init: plan.init,
      server: plan.server,
      stopSignal: plan.stopSignal,
      cleanup: plan.cleanup,
      snapshot: plan.snapshot,
      initCache: plan.initCache,
      reuse,
      idleTimeoutMs: req.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      graceMs: resolveGraceMs(req.options),
      project: process.cwd(),
    };
    writeJson(files.plan, keeperPlan);
    takeLease(dir);
    const keeper = spawn(process.execPath, [...keeperCommand(), dir], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, FAST_TEST_DB_KEEPER: '1' },
    });
    keeper.unref();
    pauseHere('client-server-start');
    if (plan.expected) announce(plan.expected);
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
        rmSync(plan.restoredFrom, { recursive: true, force: true });
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
  while (pidAlive(status.keeperPid) && Date.now() < deadline) await sleep(50);
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
