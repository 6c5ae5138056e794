/**
 * Another local user on the machine plants folders and links under a shared root (a sticky,
 * world-writable folder, as /dev/shm is) where our folders will go. We must refuse with UNSAFE_PATH
 * and touch nothing of theirs, and the keeper must run nothing from a plan another uid could have
 * written. Needs root, to make that second, unprivileged user (removed after).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keeperFiles, PLAN_WRITTEN } from '../../src/server/keeper/files.js';
import { ensurePrivateDir } from '../../src/server/os/private-dir.js';
import { serversRoot } from '../../src/server/keeper/dirs.js';
import { contextOf } from '../../src/options/context.js';
import { removeDataRoot, ROOT, waitFor } from '../core/helpers.js';

const FIXTURE = join(ROOT, 'test/fixtures/crash/server-worker.mts');

/** A keeper plan whose init command leaves `marker`: that it exists says the keeper ran the plan. */
const markerPlan = (marker: string) => ({
  init: [{ command: '/usr/bin/touch', args: [marker], env: {} }],
  server: { command: '/bin/sleep', args: ['30'], env: {} },
  stopSignal: 'SIGTERM',
  cleanup: [],
  reuse: false,
  idleTimeoutMs: 1000,
  graceMs: 0,
  project: ROOT,
});

/** A keeper for `dir`, told its plan is written (as the registry does), or told nothing when `said` is ''. */
function startKeeper(dir: string, said = PLAN_WRITTEN) {
  const keeper = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server/keeper/keeper.ts'), dir], {
    cwd: ROOT,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  keeper.stdin!.end(said);
  return keeper;
}
const isRoot = process.getuid?.() === 0;
const NAME = `ftdbother${process.pid}`;

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FAST_TEST_DB_GRACE_MS: '0', ...extra };
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

/** One test process getting its database under `dataRoot`: its exit code and what it said. */
function runWorker(dataRoot: string, extra: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: ROOT,
    env: childEnv({ ENGINE: 'postgres', DATA_ROOT: dataRoot, ...extra }),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe.skipIf(!isRoot)('a second local user plants folders under a shared root (needs root to make that user)', () => {
  let other: { uid: number; gid: number };
  let shared: string;
  const as = (cmd: string, args: string[]) => execFileSync(cmd, args, { uid: other.uid, gid: other.gid, stdio: 'pipe' });

  beforeAll(() => {
    execFileSync('useradd', ['--system', '--no-create-home', '--user-group', '--shell', '/usr/sbin/nologin', NAME]);
    other = {
      uid: Number(execFileSync('id', ['-u', NAME], { encoding: 'utf8' })),
      gid: Number(execFileSync('id', ['-g', NAME], { encoding: 'utf8' })),
    };
    // Like /dev/shm: anyone may create names in it, nobody may remove another's.
    shared = mkdtempSync(join('/dev/shm', 'ftdb-test-shared-'));
    chmodSync(shared, 0o1777);
  });
  afterAll(async () => {
    if (shared) await removeDataRoot(shared);
    spawnSync('userdel', [NAME]);
  });

  it('their folder under our per-user name: UNSAFE_PATH naming it and its owner; their folder, its mode and files stay', () => {
    const ours = serversRoot(contextOf({ dataRoot: shared }));
    as('mkdir', ['-m', '0777', ours]);
    as('mkdir', [join(ours, 'postgres-0123456789')]);
    as('touch', [join(ours, 'keep')]);
    const r = runWorker(shared);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('UNSAFE_PATH');
    expect(r.err).toContain(`${ours} (owner uid ${other.uid})`);
    const st = lstatSync(ours);
    expect([st.uid, st.mode & 0o7777]).toEqual([other.uid, 0o777]);
    expect(existsSync(join(ours, 'keep'))).toBe(true);
    expect(existsSync(join(ours, 'postgres-0123456789', 'plan.json'))).toBe(false);
    rmSync(ours, { recursive: true, force: true });
  });

  it('a symlink under our per-user name: refused, the link and what it points at are left as they were', () => {
    const ours = serversRoot(contextOf({ dataRoot: shared }));
    const target = join(shared, `theirs-${process.pid}`);
    as('mkdir', ['-m', '0700', target]);
    as('touch', [join(target, 'keep')]);
    as('ln', ['-s', target, ours]);
    const r = runWorker(shared);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('UNSAFE_PATH');
    expect(r.err).toContain('is a symbolic link');
    expect(lstatSync(ours).isSymbolicLink()).toBe(true);
    const st = statSync(target);
    expect([st.uid, st.mode & 0o7777]).toEqual([other.uid, 0o700]);
    expect(existsSync(join(target, 'keep'))).toBe(true);
    rmSync(ours, { force: true });
    rmSync(target, { recursive: true, force: true });
  });

  it('their folder under a server name inside ours: refused with its path, nothing written in it', async () => {
    // A first run tells the server folder's name; with no grace its folder goes as the run ends.
    const first = runWorker(shared);
    expect(first.code, first.err).toBe(0);
    const { stateDir } = JSON.parse(first.out.split('\n')[0]!) as { stateDir: string };
    expect(await waitFor(() => !existsSync(stateDir), 20_000)).toBe(true);
    const ours = serversRoot(contextOf({ dataRoot: shared }));
    if (!existsSync(ours)) ensurePrivateDir(ours);
    mkdirSync(stateDir, { mode: 0o777 });
    chmodSync(stateDir, 0o777);
    chownSync(stateDir, other.uid, other.gid);
    const r = runWorker(shared);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('UNSAFE_PATH');
    expect(r.err).toContain(`${stateDir} (owner uid ${other.uid})`);
    expect(existsSync(keeperFiles(stateDir).plan)).toBe(false);
    expect(lstatSync(stateDir).mode & 0o7777).toBe(0o777);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('the keeper runs nothing from a plan another uid wrote', async () => {
    const ours = serversRoot(contextOf({ dataRoot: shared }));
    ensurePrivateDir(ours);
    const dir = join(ours, 'postgres-fedcba9876');
    ensurePrivateDir(dir);
    const marker = join(shared, `ran-${process.pid}`);
    const plan = markerPlan(marker);
    writeFileSync(keeperFiles(dir).plan, JSON.stringify(plan));
    chownSync(keeperFiles(dir).plan, other.uid, other.gid);
    const keeper = startKeeper(dir);
    let err = '';
    keeper.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => keeper.once('exit', r));
    expect(code).toBe(1);
    expect(err).toContain('UNSAFE_PATH');
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(keeperFiles(dir).plan, 'utf8')).toBe(JSON.stringify(plan)); // left as it was
    rmSync(dir, { recursive: true, force: true });
    rmSync(marker, { force: true });
  });
});

describe('state files', () => {
  it("the keeper's status is written whole and renamed into place: a reader never opens the file being written", async () => {
    const shared = mkdtempSync(join('/dev/shm', 'ftdb-test-status-'));
    const dir = join(serversRoot(contextOf({ dataRoot: shared })), 'postgres-00aa11bb22');
    ensurePrivateDir(dirname(dir));
    ensurePrivateDir(dir);
    const plan = {
      init: [{ command: '/bin/sleep', args: ['0.5'], env: {} }],
      server: { command: '/bin/sleep', args: ['30'], env: {} },
      stopSignal: 'SIGTERM',
      cleanup: [],
      reuse: false,
      idleTimeoutMs: 60_000,
      graceMs: 60_000,
      project: ROOT,
    };
    writeFileSync(keeperFiles(dir).plan, JSON.stringify(plan));
    const keeper = startKeeper(dir);
    const exited = new Promise((r) => keeper.once('exit', r));
    // The file each phase was read from: one written in place keeps its inode from phase to phase.
    const inodes: Record<string, number> = {};
    const deadline = Date.now() + 20_000;
    while (!inodes.running && Date.now() < deadline) {
      try {
        const file = keeperFiles(dir).status;
        const ino = statSync(file).ino;
        const phase = (JSON.parse(readFileSync(file, 'utf8')) as { phase: string }).phase;
        if (statSync(file).ino === ino) inodes[phase] ??= ino;
      } catch {
        /* not written yet */
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    keeper.kill('SIGTERM');
    await exited;
    rmSync(shared, { recursive: true, force: true });
    expect(Object.keys(inodes).sort()).toEqual(['init', 'running']);
    expect(inodes.init).not.toBe(inodes.running);
  });

  it('a keeper whose input ends before it is told the plan is written runs nothing and writes nothing', async () => {
    const shared = mkdtempSync(join('/dev/shm', 'ftdb-test-untold-'));
    const dir = join(serversRoot(contextOf({ dataRoot: shared })), 'postgres-00cc11dd22');
    ensurePrivateDir(dirname(dir));
    ensurePrivateDir(dir);
    const marker = join(shared, 'ran');
    // A plan already there (a client that died as it wrote it, or half of one): still not run.
    writeFileSync(keeperFiles(dir).plan, JSON.stringify(markerPlan(marker)));
    try {
      for (const said of ['', 'plan wri']) {
        const keeper = startKeeper(dir, said);
        expect(await new Promise<number | null>((r) => keeper.once('exit', r))).toBe(1);
        expect(existsSync(marker)).toBe(false);
        expect(existsSync(keeperFiles(dir).status)).toBe(false);
        expect(existsSync(keeperFiles(dir).log)).toBe(false);
      }
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });
});

describe('a dataRoot of the user’s choosing', () => {
  it('that does not exist yet is made with its parents; the folders of ours below it are made private', async () => {
    const base = mkdtempSync(join(tmpdir(), 'ftdb-root-'));
    chmodSync(base, 0o755); // the servers run as nobody when we are root: it walks through to its data
    const chosen = join(base, 'not', 'there');
    try {
      const r = runWorker(chosen);
      expect(r.err).not.toContain('ENOENT');
      expect(r.code).toBe(0);
      const ours = lstatSync(join(chosen, `fast-test-db-${process.getuid?.() ?? 0}`));
      expect(ours.isDirectory()).toBe(true);
      expect(ours.mode & 0o022).toBe(0);
    } finally {
      await removeDataRoot(chosen);
      rmSync(base, { recursive: true, force: true });
    }
  });
});
