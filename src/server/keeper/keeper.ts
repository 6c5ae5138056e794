/**
 * The keeper: a small detached process that owns one server. It runs the plan's init commands,
 * starts the server, and stops it (then removes its data and its directory) once no client process
 * has held a lease for `graceMs` (a few seconds, so that the next test file joins it), or, for
 * reused servers, for `idleTimeoutMs`. Clients are plain pids, so a client
 * killed with SIGKILL is noticed on the next poll and leaves no server behind.
 *
 * Usage (by the registry only): node keeper.js <dir>   where <dir>/plan.json holds a KeeperPlan,
 * read once the registry writes PLAN_WRITTEN to this process's input.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pauseHere } from '../../util/debug-pause.js';
import type { Command } from '../os/launch.js';
import { partialPath, WARM_COPY_NAME, warmSaveDir } from '../os/copy-names.js';
import { keeperFiles, type KeeperPlan, type KeeperStatus, PLAN_WRITTEN } from './files.js';
import { listDir, readJson, writeJson } from '../os/shared-files.js';
import { releaseSegments, segmentsOf } from '../os/shared-memory.js';
import { assertPrivate } from '../os/private-dir.js';
import { pidAlive, withFileLock } from '../os/lock.js';
import { sleep } from '../../util/sleep.js';
import { saveCompactCopy } from '../os/compact-copy.js';
import { evictOldCopies, retireCopy, treeBytes, WARM_MAX_BYTES, worthSavingFile } from '../os/warm-cache.js';

const POLL_MS = 250;

function run(cmd: Command, logFd: number, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(cmd.command, cmd.args, {
    cwd: cmd.cwd,
    env: { ...env, ...cmd.env },
    uid: cmd.uid,
    gid: cmd.gid,
    stdio: ['ignore', logFd, logFd],
  });
  // A command that cannot be executed (EACCES, ENOENT) emits 'error' and never 'exit': log why, then fail like an exit.
  child.once('error', (e) => (writeSync(logFd, `could not run ${cmd.command}: ${e.message}\n`), child.emit('exit', 127, null)));
  return child;
}

function liveLeases(leasesDir: string): number {
  let live = 0;
  for (const name of listDir(leasesDir)) {
    if (pidAlive(Number(name))) live++;
    else rmSync(join(leasesDir, name), { force: true });
  }
  return live;
}

const SAVE_ARG = '--save-warm-copy';

/**
 * The copy to the cache (a disk: 40-60 MB, 0.3-0.7 s on a quiet machine, several seconds on a busy
 * one) must hold up neither the run's end, which waits for this keeper to exit, nor the first
 * start. What is saved is put aside on the servers' own tmpfs, and a detached process of this
 * script copies it to the cache: a stopping server's data directory is moved there (a rename);
 * initdb's output, which the server is about to change, is copied there (tmpfs to tmpfs, so far
 * quicker than the copy to the disk). Its copy is in the servers root (embedded-copies.ts), made
 * by the same detached process: the compact copy leaves out the WAL's zeros, memory on tmpfs.
 */
function saveInBackground(dir: string, snapshot: { from: string; to: string }, what?: 'initdb'): void {
  const staged = warmSaveDir(dirname(dir), process.pid, what);
  try {
    if (what === 'initdb') cpSync(snapshot.from, staged, { recursive: true });
    else renameSync(snapshot.from, staged);
    const pauseStep = what === 'initdb' ? 'initdb-copy-written' : 'warm-copy-written';
    spawn(process.execPath, [...process.execArgv, process.argv[1]!, SAVE_ARG, staged, snapshot.to, pauseStep], {
      detached: true,
      stdio: 'ignore',
    }).unref();
  } catch {
    rmSync(staged, { recursive: true, force: true });
  }
}

/**
 * The detached copy to the cache. Written next to the final path and renamed into place, so a
 * reader never sees half a copy; a kill before the rename leaves the partial copy, named after this
 * process, for `clean`. `pauseStep` lets the crash tests stop there.
 */
function saveWarmCopy(from: string, to: string, pauseStep = 'warm-copy-written'): void {
  const partial = partialPath(to, process.pid);
  // `from` is a data directory (the server account's when we are root) in a folder of ours: that
  // folder is checked, and `from` must be a real folder, or nothing is copied nor removed.
  try {
    assertPrivate(dirname(from));
    if (!lstatSync(from).isDirectory()) return;
  } catch {
    return;
  }
  try {
    mkdirSync(dirname(to), { recursive: true });
    // Without the zeros large files end with (a MariaDB redo log is 256 MB of which a run writes a few).
    saveCompactCopy(from, partial);
    pauseHere(pauseStep);
    // What is there and fails the check (a link, another user's, opened up) is left as it is, never replaced.
    assertPrivate(to);
    retireCopy(to);
    renameSync(partial, to);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  rmSync(from, { recursive: true, force: true });
  // Only warm copies count towards the number kept; initdb's output has one copy per initdb key.
  if (!WARM_COPY_NAME.test(basename(to))) return;
  try {
    evictOldCopies(to);
  } catch {
    /* another process evicts at the same time */
  }
}

/**
 * The plan names commands this process runs, as root when we are root: it is read only from a folder
 * only we can write (and its parent, which could swap it), and only if the file is ours.
 */
function readPlan(dir: string): KeeperPlan {
  const files = keeperFiles(dir);
  assertPrivate(dirname(dir));
  assertPrivate(dir);
  assertPrivate(files.plan, 'file');
  return JSON.parse(readFileSync(files.plan, 'utf8')) as KeeperPlan;
}

/**
 * The registry starts this process before it writes the plan, and says on this process's input when
 * the plan is whole. Its input ending without that (the client failed to plan, or died): nothing to do.
 * The word is enough, without waiting for the end of the input: a client stopped right after it
 * (a debugger, a crash test's pause) still gets its server.
 */
async function planWritten(): Promise<boolean> {
  let said = '';
  process.stdin.setEncoding('utf8');
  // Leaving the loop closes the input.
  for await (const chunk of process.stdin) if ((said += chunk).length >= PLAN_WRITTEN.length) break;
  return said === PLAN_WRITTEN;
}

/** `env`: the keeper's own, read once at its entry, which the commands it runs inherit. */
async function main(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const files = keeperFiles(dir);
  if (!(await planWritten())) process.exit(1);
  let plan: KeeperPlan;
  try {
    plan = readPlan(dir);
  } catch (e) {
    // Nothing is written in a folder that failed the check; the client sees this keeper gone.
    process.stderr.write(`${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}\n`);
    process.exit(1);
  }
  const logFd = openSync(files.log, 'a');
  const status = (s: Omit<KeeperStatus, 'keeperPid'>) => writeJson(files.status, { ...s, keeperPid: process.pid });
  let server: ChildProcess | undefined;
  /** The init command running now: a stop during init must not leave it writing the data directory. */
  let initChild: ChildProcess | undefined;
  let stopping = false;

  const finish = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Under the registry's lock for the same reason (a stop asked for by a signal), unless it is
    // said already: by the idle loop below, or by a client that holds the lock while it waits for
    // this keeper to exit (releaseOwnedServer), which taking the lock here would only stall.
    if (readJson<KeeperStatus>(files.status)?.phase !== 'stopping')
      await withFileLock(files.lock, async () => status({ phase: 'stopping', serverPid: server?.pid }), 5_000).catch(() =>
        status({ phase: 'stopping', serverPid: server?.pid }),
      );
    pauseHere('keeper-stopping');
    if (initChild && initChild.exitCode === null && initChild.signalCode === null) {
      const exited = new Promise((r) => initChild!.once('exit', r));
      initChild.kill('SIGKILL');
      await exited;
    }
    let clean = false;
    const segments = segmentsOf(plan.cleanup);
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise<number | null>((r) => server!.once('exit', (c) => r(c)));
      server.kill(plan.stopSignal);
      const timer = setTimeout(() => server?.kill('SIGKILL'), 15_000);
      clean = (await exited) === 0;
      clearTimeout(timer);
    }
    if (
      clean &&
      plan.snapshot &&
      (plan.snapshot.always || existsSync(worthSavingFile(dir))) &&
      treeBytes(plan.snapshot.from, WARM_MAX_BYTES) <= WARM_MAX_BYTES
    ) {
      // Asked for explicitly (cacheDataDir: true, `start --data-cache`): saved before the stop returns, as it says.
      if (plan.snapshot.always) saveWarmCopy(plan.snapshot.from, plan.snapshot.to);
      else saveInBackground(dir, plan.snapshot);
    }
    for (const p of plan.cleanup) rmSync(p, { recursive: true, force: true });
    if (!clean) await releaseSegments(segments, { creator: server?.pid, serverUid: plan.server.uid });
    rmSync(files.state, { force: true });
    // A stopped server leaves nothing: no client joins while the status says stopping, and one
    // waiting for this keeper to exit makes the directory again under its lock.
    for (const name of listDir(dir)) if (join(dir, name) !== files.lock) rmSync(join(dir, name), { recursive: true, force: true });
    try {
      rmdirSync(dir);
      rmdirSync(dirname(dir));
    } catch {
      /* a client holds the lock, or another server lives next to this one */
    }
    process.exit(code);
  };
  process.on('SIGTERM', () => void finish(0));
  process.on('SIGINT', () => void finish(0));
  process.on('SIGHUP', () => void finish(0));

  status({ phase: 'init' });
  for (const cmd of plan.init) {
    const child = (initChild = run(cmd, logFd, env));
    pauseHere('keeper-init');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    initChild = undefined;
    if (stopping) return;
    if (code !== 0) {
      status({ phase: 'failed', error: `${cmd.command} exited with ${code}` });
      for (const p of plan.cleanup) rmSync(p, { recursive: true, force: true });
      process.exit(1);
    }
  }
  if (plan.initCache) saveInBackground(dir, plan.initCache, 'initdb');
  server = run(plan.server, logFd, env);
  server.once('exit', (code, signal) => {
    if (stopping) return;
    status({ phase: 'failed', error: `server exited (${signal ?? code}) by itself; see ${files.log}` });
    stopping = true;
    // Read before the data directory (and postmaster.pid, which names it) goes: a killed
    // postmaster's System V segment outlives it otherwise.
    const segments = segmentsOf(plan.cleanup);
    for (const p of plan.cleanup) rmSync(p, { recursive: true, force: true });
    void releaseSegments(segments, { creator: server?.pid, serverUid: plan.server.uid }).finally(() => process.exit(1));
  });
  status({ phase: 'running', serverPid: server.pid });
  pauseHere('keeper-running');

  let idleSince = Date.now();
  for (;;) {
    await sleep(POLL_MS);
    if (stopping) return;
    if (liveLeases(files.leases) > 0) {
      idleSince = Date.now();
      continue;
    }
    const grace = plan.reuse ? plan.idleTimeoutMs : (plan.graceMs ?? 0);
    if (Date.now() - idleSince < grace) continue;
    // Decide under the registry's lock, so that no client joins a server that is about to stop.
    const stop = await withFileLock(files.lock, async () => {
      if (liveLeases(files.leases) > 0) return false;
      if (existsSync(files.state)) unlinkSync(files.state);
      // Said before the lock is let go: a client that takes it next must wait for this keeper to
      // finish, not start a server in this folder whose data the cleanup below would remove.
      status({ phase: 'stopping', serverPid: server?.pid });
      return true;
    });
    if (stop) await finish(0);
    else idleSince = Date.now();
  }
}

// Only when run as the keeper script: every process that imports the registry imports this module
// too, and a CLI's own arguments (jest --config ...) must not be taken for a keeper directory.
const dirArg = process.argv[2];
if (dirArg && /(^|[\\/])keeper\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  if (dirArg === SAVE_ARG) {
    saveWarmCopy(process.argv[3]!, process.argv[4]!, process.argv[5]);
    try {
      rmdirSync(dirname(process.argv[3]!)); // the user's folder, when no server is left in it
    } catch {
      /* a server lives there */
    }
  } else void main(dirArg, process.env);
}
