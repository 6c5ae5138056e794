/**
 * One owned server per project and engine, shared by every process of a run. The first caller
 * starts it (through the keeper), later callers find its state file and join; each process holds
 * a lease (a file named after its pid) for as long as it lives.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { here } from '../here.js';
import { FastTestDbError } from '../errors.js';
import { logger } from '../log.js';
import type { ServerInfo, TestDatabaseOptions } from '../types.js';
import { keeperFiles, type KeeperPlan, type KeeperStatus } from './keeper-files.js';
import type { LaunchPlan, PlanContext } from './launch.js';
import { pidAlive, withFileLock } from './lock.js';
import { defaultDataRoot } from './platform.js';

const log = logger('server');

export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;

/** Where owned servers live: tmpfs when the machine has one. */
export function dataRoot(options: TestDatabaseOptions): { root: string; tmpfs: boolean } {
  const chosen = options.dataRoot ?? process.env.FAST_TEST_DB_DATA_ROOT;
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
  const src = join(dir, 'server', 'keeper.ts');
  if (existsSync(src)) return ['--import', 'tsx', src];
  throw new FastTestDbError('BINARY_NOT_FOUND', `the keeper script is missing next to ${dir}`, 'reinstall fast-test-db');
}

const leased = new Set<string>();

/**
 * Marks `pid` (this process by default) as a client of the server in `dir`: the keeper keeps the
 * server while any client lives. A runner may lease on behalf of its parent (node --test).
 */
export function takeLease(dir: string, pid = process.pid): void {
  const leases = keeperFiles(dir).leases;
  mkdirSync(leases, { recursive: true });
  const file = join(leases, String(pid));
  writeFileSync(file, '');
  if (pid === process.pid && !leased.has(file)) {
    leased.add(file);
    if (leased.size === 1) process.once('exit', () => leased.forEach((f) => rmSync(f, { force: true })));
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export interface OwnedServerRequest {
  engine: string;
  /** Anything that must differ for servers not to be shared (binary, options). */
  identity: unknown[];
  options: TestDatabaseOptions;
  plan(ctx: PlanContext): Promise<LaunchPlan>;
}

export function serverDir(req: Pick<OwnedServerRequest, 'engine' | 'identity' | 'options'>): string {
  const key = createHash('sha256').update(JSON.stringify([process.cwd(), ...req.identity])).digest('hex').slice(0, 10);
  return join(serversRoot(req.options), `${req.engine}-${key}`);
}

/** Joins the running server of this project, or starts one. The lease lasts until this process exits. */
export async function acquireOwnedServer(req: OwnedServerRequest): Promise<ServerInfo> {
  const dir = serverDir(req);
  const files = keeperFiles(dir);
  mkdirSync(dir, { recursive: true });
  // Our own directories stay enterable whatever the umask: servers run unprivileged when we are root.
  for (const d of [dirname(dir), dir]) chmodSync(d, 0o755);
  return withFileLock(files.lock, async () => {
    const state = readJson<ServerInfo>(files.state);
    const status = readJson<KeeperStatus>(files.status);
    if (state && status?.phase === 'running' && pidAlive(status.keeperPid)) {
      takeLease(dir);
      log('joined %s server in %s', state.engine, dir);
      return state;
    }
    if (status && pidAlive(status.keeperPid)) {
      // A keeper still stopping an old server: let it finish before starting anew.
      const deadline = Date.now() + 20_000;
      while (pidAlive(status.keeperPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    }
    return start(req, dir);
  });
}

async function start(req: OwnedServerRequest, dir: string): Promise<ServerInfo> {
  const files = keeperFiles(dir);
  const reuse = req.options.reuse ?? process.env.FAST_TEST_DB_REUSE === '1';
  for (let attempt = 1; ; attempt++) {
    rmSync(files.state, { force: true });
    rmSync(files.status, { force: true });
    rmSync(files.log, { force: true });
    const began = Date.now();
    const plan = await req.plan({ dir, port: await freePort(), options: req.options });
    const keeperPlan: KeeperPlan = {
      init: plan.init,
      server: plan.server,
      stopSignal: plan.stopSignal,
      cleanup: plan.cleanup,
      snapshot: plan.snapshot,
      initCache: plan.initCache,
      reuse,
      idleTimeoutMs: req.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    };
    writeFileSync(files.plan, JSON.stringify(keeperPlan));
    takeLease(dir);
    const keeper = spawn(process.execPath, [...keeperCommand(), dir], { detached: true, stdio: 'ignore', env: { ...process.env, FAST_TEST_DB_KEEPER: '1' } });
    keeper.unref();
    const keeperAlive = () => {
      const st = readJson<KeeperStatus>(files.status);
      return pidAlive(keeper.pid) && st?.phase !== 'failed' && st?.phase !== 'stopped';
    };
    const logTail = () => (existsSync(files.log) ? readFileSync(files.log, 'utf8').slice(-4000) : '');
    try {
      const info = await plan.ready({ keeperAlive, logTail });
      writeFileSync(files.state, JSON.stringify({ ...info, stateDir: dir } satisfies ServerInfo));
      log('started %s %s in %d ms (dir %s)', info.engine, info.version, Date.now() - began, dir);
      return { ...info, stateDir: dir };
    } catch (e) {
      if (keeper.pid && pidAlive(keeper.pid)) process.kill(keeper.pid, 'SIGTERM');
      if (e instanceof FastTestDbError && e.code === 'PORT_IN_USE' && attempt < 3) continue;
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
  if (!status || !pidAlive(status.keeperPid)) return false;
  process.kill(status.keeperPid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (pidAlive(status.keeperPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
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
  return withFileLock(files.lock, async () => {
    const others = existsSync(files.leases) ? readdirSync(files.leases).filter((p) => pidAlive(Number(p))) : [];
    if (others.length > 0) return 'shared';
    return (await stopOwnedServer(stateDir)) ? 'stopped' : 'not-running';
  });
}
