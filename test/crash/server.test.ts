/**
 * Crash safety of the servers we start: a test process or a keeper killed with SIGKILL at each step
 * of a server's life, stopped there deterministically by the test-only pause hook
 * (FAST_TEST_DB_TEST_PAUSE, src/util/debug-pause.ts). After each kill the next run must succeed in the same
 * folder, never with two servers on one data directory, and `clean` must leave nothing of ours:
 * no process, no folder under the data root, no PostgreSQL shared memory segment in /dev/shm.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { clean } from '../../src/cli/tools/clean.js';
import { processesIn, running, signal } from '../../src/server/os/processes.js';
import { postgresSegment } from '../../src/server/os/shared-memory.js';
import { serversRoot } from '../../src/server/keeper/dirs.js';
import { contextOf } from '../../src/options/context.js';
import { listDir } from '../../src/server/os/shared-files.js';
import { BINARIES_COPY_NAME, INITDB_COPY_NAME, INITDB_PARTIAL_NAME } from '../../src/server/os/copy-names.js';
import { statFields } from '../../src/server/os/proc-stat.js';
import { privateDataRoot, removeDataRoot, ROOT, waitFor } from '../core/helpers.js';

const FIXTURE = join(ROOT, 'test/fixtures/crash/server-worker.mts');

interface Worker {
  child: ChildProcess;
  line: Promise<{ name: string; port: number; stateDir: string; tuned: boolean }>;
  exited: Promise<number | null>;
  stderr(): string;
}

function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FAST_TEST_DB_GRACE_MS: '0' };
  for (const k of Object.keys(env))
    if (
      k === 'TEST_DATABASE_URL' ||
      k === 'FAST_TEST_DB_URL' ||
      k === 'FAST_TEST_DB_SERVER' ||
      k.startsWith('VITEST') ||
      k.startsWith('FAST_TEST_DB_TEST_PAUSE')
    )
      delete env[k];
  return env;
}

function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const line = new Promise<any>((res, rej) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) res(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    void exited.then((code) => rej(new Error(`worker exited ${code}: ${err}`)));
  });
  line.catch(() => undefined);
  return { child, line, exited, stderr: () => err };
}

/** Starts a worker that stops at `step` (in itself or its keeper); resolves with the paused process's pid. */
async function pausedAt(step: string, env: Record<string, string>, work: string): Promise<{ worker: Worker; pid: number }> {
  const file = join(work, `pause-${step}-${Date.now()}`);
  const worker = startWorker({ ...env, FAST_TEST_DB_TEST_PAUSE: step, FAST_TEST_DB_TEST_PAUSE_FILE: file });
  const reached = await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('\n'), SERVER_STOPS_MS * 2);
  if (!reached) throw new Error(`never reached ${step}: ${worker.stderr()}`);
  const { pid } = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as { pid: number };
  return { worker, pid };
}

/**
 * Margins for a busy machine (two cores, load 6-8, other suites starting servers): a wait ends as soon
 * as its condition holds, so a long one costs nothing when the machine is idle.
 */
const KILL_LANDS_MS = 30_000;
const SERVER_STOPS_MS = 60_000;
const FOLDER_GOES_MS = 90_000;

/** Everything of ours under the data root: server folders, copies, anything a crash left. */
function leftIn(dataRoot: string): string[] {
  const root = serversRoot(contextOf({ dataRoot }));
  return listDir(root).map((d) => join(root, d));
}

/**
 * The folders of servers: the binaries copy made for a project only root can enter, and initdb's
 * output (or a copy of it being saved), are shared, not a server's.
 */
function serverDirs(dataRoot: string): string[] {
  const shared = [BINARIES_COPY_NAME, INITDB_COPY_NAME, INITDB_PARTIAL_NAME];
  return leftIn(dataRoot).filter((d) => !shared.some((re) => re.test(basename(d))));
}

function status(dir: string): { keeperPid: number; serverPid: number } {
  return JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8'));
}

/** PostgreSQL dynamic shared memory segments in /dev/shm that `pid` has mapped. */
function shmSegments(pid: number): string[] {
  return readFileSync(`/proc/${pid}/maps`, 'utf8')
    .split('\n')
    .map((l) => l.split(/\s+/).slice(5).join(' '))
    .filter((f) => f.startsWith('/dev/shm/PostgreSQL.'));
}

function sysvSegmentIds(): number[] {
  return readFileSync('/proc/sysvipc/shm', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => Number(l.trim().split(/\s+/)[1]))
    .filter((n) => Number.isInteger(n));
}

/** The processes whose parent is `pid` (a postmaster's checkpointer, backends, ...). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((p) => Number.isInteger(p))
    .filter((p) => Number(statFields(p)?.[1]) === pid);
}

/** Runs clean as a user would after a crash, then asserts that nothing of ours is left. */
async function cleanLeavesNothing(dataRoot: string, segments: string[] = []): Promise<void> {
  const report = await clean({ olderThanMs: 0, dataRoot });
  expect(report.ok).toBe(true);
  const gone = await waitFor(() => processesIn(dataRoot).length === 0, SERVER_STOPS_MS);
  const left = processesIn(dataRoot).map((p) => `${p}: ${readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 200)}`);
  expect(gone, `still running after clean: ${left.join('\n')}\nclean: ${JSON.stringify(report.servers)}`).toBe(true);
  expect(leftIn(dataRoot)).toEqual([]);
  for (const s of segments) expect(existsSync(s)).toBe(false);
}

for (const engine of ['postgres', 'mysql'] as const) {
  // Each test waits for several of the above in turn, and starts two or three servers.
  describe(`${engine === 'postgres' ? 'PostgreSQL' : 'MariaDB'}: SIGKILL at each step of a server's life`, { timeout: 600_000 }, () => {
    const dataRoot = privateDataRoot(`crash-${engine}`);
    const work = mkdtempSync(join('/tmp', `ftdb-crash-${engine}-`));
    const env = { ENGINE: engine, DATA_ROOT: dataRoot };
    afterAll(async () => {
      await removeDataRoot(dataRoot);
      rmSync(work, { recursive: true, force: true });
    });

    it('the test process, while its server starts: the next run succeeds; clean leaves nothing', async () => {
      const { worker, pid } = await pausedAt('client-server-start', env, work);
      expect(pid).toBe(worker.child.pid);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const next = startWorker(env);
      expect((await next.line).tuned).toBe(true);
      expect(await next.exited).toBe(0);
      // The last client gone, the keeper stops the server and removes its folder.
      expect(await waitFor(() => serverDirs(dataRoot).length === 0, FOLDER_GOES_MS)).toBe(true);
      await cleanLeavesNothing(dataRoot);
    });

    it('the keeper, during init (initdb / bootstrap): the start fails clearly, the next run stops what it left and succeeds', async () => {
      // No initdb cache and no warm copy, so that PostgreSQL runs initdb too.
      const { worker, pid } = await pausedAt('keeper-init', { ...env, FAST_TEST_DB_INITDB_CACHE: '0', FAST_TEST_DB_DATA_CACHE: '0' }, work);
      process.kill(pid, 'SIGKILL');
      expect(await worker.exited).not.toBe(0);
      expect(worker.stderr()).toMatch(/did not start/);
      const next = startWorker(env);
      expect((await next.line).tuned).toBe(true);
      expect(await next.exited).toBe(0);
      expect(await waitFor(() => serverDirs(dataRoot).length === 0, FOLDER_GOES_MS)).toBe(true);
      await cleanLeavesNothing(dataRoot);
    });

    it('the keeper, while its server runs: the last client stops the server as it exits', async () => {
      const holder = startWorker({ ...env, HOLD: '1' });
      const { stateDir } = await holder.line;
      const { keeperPid, serverPid } = status(stateDir);
      const segments = engine === 'postgres' ? shmSegments(serverPid) : [];
      expect(segments).toEqual([]); // dynamic shared memory lives in the data directory
      process.kill(keeperPid, 'SIGKILL');
      expect(await waitFor(() => !running(keeperPid), KILL_LANDS_MS)).toBe(true);
      expect(running(serverPid)).toBe(true); // the tests go on
      holder.child.kill('SIGUSR2');
      expect(await holder.exited).toBe(0);
      expect(await waitFor(() => !running(serverPid), SERVER_STOPS_MS)).toBe(true);
      const next = startWorker(env);
      expect((await next.line).tuned).toBe(true);
      expect(await next.exited).toBe(0);
      expect(await waitFor(() => serverDirs(dataRoot).length === 0, FOLDER_GOES_MS)).toBe(true);
      await cleanLeavesNothing(dataRoot);
    });

    it('the keeper and then its only client: the next run stops the orphan before it touches the folder', async () => {
      const holder = startWorker({ ...env, HOLD: '1' });
      const first = await holder.line;
      const { keeperPid, serverPid } = status(first.stateDir);
      process.kill(keeperPid, 'SIGKILL');
      holder.child.kill('SIGKILL');
      await holder.exited;
      expect(await waitFor(() => !running(keeperPid), KILL_LANDS_MS)).toBe(true);
      expect(running(serverPid)).toBe(true); // nobody left to stop it
      const next = startWorker({ ...env, HOLD: '1' });
      const second = await next.line;
      expect(second.stateDir).toBe(first.stateDir); // the same folder...
      expect(running(serverPid)).toBe(false); // ...whose old server was stopped first
      const now = status(second.stateDir);
      expect(now.serverPid).not.toBe(serverPid);
      // One server in that folder: its own processes only (the postmaster's children do not name it).
      expect(processesIn(second.stateDir).filter((p) => p !== now.keeperPid)).toEqual([now.serverPid]);
      next.child.kill('SIGKILL');
      process.kill(now.keeperPid, 'SIGKILL');
      await next.exited;
      expect(await waitFor(() => !running(now.keeperPid), KILL_LANDS_MS)).toBe(true); // a kill takes a moment to land
      // Both killed: clean finds the orphan and removes every trace of it.
      await cleanLeavesNothing(dataRoot);
      expect(running(now.serverPid)).toBe(false);
    });

    if (engine === 'postgres')
      it('the server alone, while its keeper lives: the keeper releases its System V segment, and /dev/shm keeps nothing of it', async () => {
        const holder = startWorker({ ...env, HOLD: '1' });
        const { stateDir } = await holder.line;
        const { keeperPid, serverPid } = status(stateDir);
        const segment = postgresSegment(join(stateDir, 'data'))!;
        const mapped = shmSegments(serverPid);
        expect(sysvSegmentIds()).toContain(segment.id);
        process.kill(serverPid, 'SIGKILL');
        // The keeper sees its server gone, removes the data directory (postmaster.pid with it) and exits.
        expect(await waitFor(() => !running(keeperPid), 20_000)).toBe(true);
        expect(sysvSegmentIds()).not.toContain(segment.id);
        for (const f of mapped) expect(existsSync(f)).toBe(false);
        holder.child.kill('SIGUSR2');
        await holder.exited;
        const next = startWorker(env);
        expect((await next.line).tuned).toBe(true);
        expect(await next.exited).toBe(0);
      });

    if (engine === 'postgres')
      it('the server itself, with its keeper and client: clean removes its data and the shared memory it held', async () => {
        const holder = startWorker({ ...env, HOLD: '1' });
        const { stateDir } = await holder.line;
        const { keeperPid, serverPid } = status(stateDir);
        const segment = postgresSegment(join(stateDir, 'data'))!;
        expect(sysvSegmentIds()).toContain(segment.id);
        // One child of the postmaster is stopped, as a busy machine can leave one for seconds: it
        // cannot notice its parent's death, so it stays attached to the segment until clean acts.
        const child = childrenOf(serverPid)[0]!;
        process.kill(child, 'SIGSTOP');
        onTestFinished(() => signal([child], 'SIGKILL')); // never leave a stopped process behind a failure
        for (const pid of [keeperPid, serverPid, holder.child.pid!]) process.kill(pid, 'SIGKILL');
        await holder.exited;
        expect(await waitFor(() => processesIn(dataRoot).length === 0, SERVER_STOPS_MS)).toBe(true);
        expect(sysvSegmentIds()).toContain(segment.id);
        await cleanLeavesNothing(dataRoot);
        expect(sysvSegmentIds()).not.toContain(segment.id);
        expect(running(child)).toBe(false);
        const next = startWorker(env);
        expect((await next.line).tuned).toBe(true);
        expect(await next.exited).toBe(0);
      });
  });
}
