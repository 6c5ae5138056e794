/**
 * What a killed save or copy leaves on disk: `doctor` mentions it, `clean --dry-run` lists it with
 * its size and changes nothing, `clean` removes it once its writer is gone and keeps it while the
 * writer runs. The savers are killed for real, stopped at the named point by the
 * test-only pause hook (src/util/debug-pause.ts); what a kill is impractical for (a binaries copy needs
 * root and a project out of the server's reach) is made under the names the code writes, with the
 * pid of a process that has exited. Nothing that is not ours by name and place is touched.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { INITDB_COPY_NAME, WARM_SAVE_NAME } from '../../src/server/os/copy-names.js';
import { pidAlive } from '../../src/server/os/lock.js';
import { serversRoot } from '../../src/server/keeper/dirs.js';
import { contextOf } from '../../src/options/context.js';
import { waitFor } from '../core/helpers.js';
import { isolatedEnv, jsonLines, runCli, runFixture } from '../cli/cli.js';

interface CleanJson {
  ok: boolean;
  files: Array<{ path: string; kind: string; bytes: number; action: string; reason: string }>;
}
interface DoctorJson {
  checks: Array<{ id: string; title: string; detail?: string; fix?: string }>;
}

/** The paths `clean` reported with `action`, in its order. */
const pathsWith = (report: CleanJson, action: string) => report.files.filter((f) => f.action === action).map((f) => f.path);

async function cleanJson(args: string[], env: NodeJS.ProcessEnv): Promise<CleanJson> {
  const r = await runCli(['clean', ...args, '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return jsonLines<CleanJson>(r.stdout)[0]!;
}

/** Every path under `dir`, with each file's size: what a dry run must leave exactly as it was. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    for (const name of readdirSync(p, { withFileTypes: true })) {
      const full = join(p, name.name);
      out.push(name.isFile() ? `${full} ${statSync(full).size}` : full);
      if (name.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

/** The pid of a process that has exited: nobody writes under a name that carries it. */
function deadPid(): number {
  const pid = spawnSync('true').pid;
  expect(pidAlive(pid)).toBe(false);
  return pid;
}

/** Waits until a process (the fixture's keeper or its saver) announces that it stopped at `step`. */
async function pausedPid(file: string, step: string): Promise<number> {
  expect(await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes(`"paused":"${step}"`), 60_000)).toBe(true);
  return (JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as { pid: number }).pid;
}

async function killed(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  expect(await waitFor(() => !pidAlive(pid), 10_000)).toBe(true);
}

describe('killed for real: the processes copying a warm copy to the cache and initdb output beside the servers', () => {
  const iso = isolatedEnv('stray-kill');
  // No grace: the server stops, and its data directory is saved, as soon as the worker exits.
  const env: NodeJS.ProcessEnv = { ...iso.env, FAST_TEST_DB_GRACE_MS: '0' };
  const root = serversRoot(contextOf({ dataRoot: iso.root }));
  const cache = env.FAST_TEST_DB_CACHE_DIR!;
  const work = mkdtempSync(join(tmpdir(), 'ftdb-stray-kill-'));
  const paused: number[] = [];
  afterAll(async () => {
    for (const pid of paused) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    await iso.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * A worker whose server's initdb output is being copied beside the servers, the copying process
   * stopped mid-copy. No warm copy at the server's stop: the next test's first run must build its template.
   */
  async function initdbSaverPaused(tag: string) {
    const pauseFile = join(work, `pause-initdb-${tag}`);
    const run = runFixture('worker.ts', {
      ...env,
      FAST_TEST_DB_WORKER: '1',
      FAST_TEST_DB_DATA_CACHE: '0',
      FAST_TEST_DB_TEST_PAUSE: 'initdb-copy-written',
      FAST_TEST_DB_TEST_PAUSE_FILE: pauseFile,
    });
    run.catch(() => undefined); // awaited by the test, once the saver is killed
    const saver = await pausedPid(pauseFile, 'initdb-copy-written');
    paused.push(saver);
    const partialName = readdirSync(root).find((n) => n.startsWith('initdb-postgres-') && n.endsWith(`.partial-${saver}`));
    expect(partialName).toBeDefined();
    const stagedName = readdirSync(root).find((n) => /^warm-save-\d+-initdb$/.test(n));
    expect(stagedName).toBeDefined();
    const keeper = Number(WARM_SAVE_NAME.exec(stagedName!)![1]);
    return { run, saver, keeper, partial: join(root, partialName!), staged: join(root, stagedName!) };
  }

  test('the process saving the initdb copy killed mid-copy: the server still starts, and clean takes both halves', async () => {
    const { run, saver, keeper, partial, staged } = await initdbSaverPaused('clean');
    const live = await cleanJson(['--older-than', '0'], env);
    expect(live.files.find((f) => f.path === partial)).toMatchObject({
      action: 'kept',
      reason: `process ${saver} is still writing it`,
    });
    expect(live.files.find((f) => f.path === staged)).toMatchObject({ kind: 'warm-save', action: 'kept' });
    expect(existsSync(partial)).toBe(true);

    await killed(saver);
    // The copy is made beside the server, which did not wait for it: the worker's run completes.
    await run;
    expect(await waitFor(() => !pidAlive(keeper), 10_000)).toBe(true);
    const gone = await cleanJson(['--older-than', '0'], env);
    expect(gone.ok).toBe(true);
    expect(gone.files.find((f) => f.path === partial)).toMatchObject({ kind: 'partial', action: 'removed' });
    expect(gone.files.find((f) => f.path === staged)).toMatchObject({ kind: 'warm-save', action: 'removed' });
    expect(existsSync(partial)).toBe(false);
    expect(existsSync(staged)).toBe(false);
  });

  test('the process saving the initdb copy killed mid-copy: the next start removes what it left, without clean', async () => {
    const { run, saver, keeper, partial, staged } = await initdbSaverPaused('next');
    await killed(saver);
    await run;
    expect(await waitFor(() => !pidAlive(keeper), 10_000)).toBe(true);
    expect([existsSync(partial), existsSync(staged)]).toEqual([true, true]);
    // The next cold start (the server stopped with its last client): tmpfs is memory, so it cleans up now.
    await runFixture('worker.ts', { ...env, FAST_TEST_DB_WORKER: '1', FAST_TEST_DB_DATA_CACHE: '0' });
    expect([existsSync(partial), existsSync(staged)]).toEqual([false, false]);
  });

  test('the saver killed mid-copy: doctor says so, --dry-run lists it with its size, clean removes it', async () => {
    const pauseFile = join(work, 'pause-warm');
    // A template with known inputs is built, so the keeper saves the data directory as it stops.
    const first = runFixture('worker.ts', {
      ...env,
      FAST_TEST_DB_WORKER: '1',
      FAST_TEST_DB_TEST_PAUSE: 'warm-copy-written',
      FAST_TEST_DB_TEST_PAUSE_FILE: pauseFile,
    });
    expect(JSON.parse(await first).built).toBe(true);
    const saver = await pausedPid(pauseFile, 'warm-copy-written');
    paused.push(saver);
    const stagedName = readdirSync(root).find((n) => /^warm-save-\d+$/.test(n))!;
    expect(stagedName).toBeDefined();
    const staged = join(root, stagedName);
    const partial = join(cache, readdirSync(cache).find((n) => n.endsWith(`.partial-${saver}`))!);
    const keeper = Number(stagedName.slice('warm-save-'.length));
    expect(await waitFor(() => !pidAlive(keeper), 10_000)).toBe(true); // the keeper is gone, its saver is not

    // The initdb copy this root's starts share (the first start that ran initdb saved it, unpaused):
    // nothing holds it, so its age alone decides. Used a moment ago, it stays for --older-than 1h.
    expect(await waitFor(() => readdirSync(root).some((n) => INITDB_COPY_NAME.test(n)), 30_000)).toBe(true);
    const initdbCopy = join(root, readdirSync(root).find((n) => INITDB_COPY_NAME.test(n))!);
    expect((await cleanJson(['--older-than', '1h', '--dry-run'], env)).files.find((f) => f.path === initdbCopy)).toMatchObject({
      kind: 'initdb',
      action: 'kept',
      reason: 'used within 60m',
    });

    // While the saver runs, its copy is its own; the initdb copy goes (the next start runs initdb).
    const live = await cleanJson(['--older-than', '0'], env);
    expect(live.files.find((f) => f.path === initdbCopy)).toMatchObject({ kind: 'initdb', action: 'removed' });
    expect(existsSync(initdbCopy)).toBe(false);
    expect(live.files.find((f) => f.path === staged)).toMatchObject({
      kind: 'warm-save',
      action: 'kept',
      reason: `process ${saver} is still copying it to the cache`,
    });
    expect(live.files.find((f) => f.path === partial)).toMatchObject({ action: 'kept', reason: `process ${saver} is still writing it` });
    expect(existsSync(join(staged, 'PG_VERSION'))).toBe(true);

    await killed(saver);
    const doctor = JSON.parse((await runCli(['doctor', '--json'], env)).stdout) as DoctorJson;
    const warm = doctor.checks.find((c) => c.id === 'stray-warm-save')!;
    expect(warm.title).toMatch(/^staged warm copies .* whose save was killed: 1, \d+ MB in all$/);
    expect(warm.detail).toContain(staged);
    expect(warm.fix).toMatch(/^fast-test-db clean --older-than 0\b/);
    expect(doctor.checks.find((c) => c.id === 'stray-partial')!.detail).toContain(partial);

    const before = tree(iso.root);
    const dry = await runCli(['clean', '--older-than', '0', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`staged warm copy ${staged} \\(\\d+ MB\\): would remove`));
    expect(dry.stdout).toMatch(new RegExp(`partial copy ${partial} \\(\\d+ MB\\): would remove \\(its writer is gone\\)`));
    expect(dry.stdout).toMatch(/would remove 2 leftover cop\(ies\) \(\d+ MB\)/);
    expect(tree(iso.root)).toEqual(before);

    const gone = await cleanJson(['--older-than', '0'], env);
    expect(pathsWith(gone, 'removed')).toEqual([staged, partial]);
    expect(gone.files.filter((f) => f.action === 'removed').every((f) => f.bytes > 1024 * 1024)).toBe(true);
    expect(existsSync(staged)).toBe(false);
    expect(existsSync(partial)).toBe(false);
  });
});

describe('made under the names the code writes: binaries copies and partial copies', () => {
  const iso = isolatedEnv('stray-names');
  const env = iso.env;
  const root = serversRoot(contextOf({ dataRoot: iso.root }));
  const cache = env.FAST_TEST_DB_CACHE_DIR!;
  let running: ChildProcess | undefined;
  afterAll(async () => {
    running?.kill('SIGKILL');
    await iso.cleanup();
  });

  const dir = (path: string, bytes = 4096, ageMs = 0) => {
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'content'), Buffer.alloc(bytes));
    const at = new Date(Date.now() - ageMs);
    utimesSync(path, at, at);
    return path;
  };

  test('dead writers and unused copies go; a live writer, a used copy and anything not ours by name and place stay', async () => {
    const dead = deadPid();
    const HOURS = 3_600_000;
    const DAYS = 24 * HOURS;
    // Older than the --older-than 1h used below: left by writers killed two hours ago.
    const stale = {
      binPartial: dir(join(root, `bin-postgres-18-aaaaaaaaaa.partial-${dead}`), 300_000, 2 * HOURS),
      cachePartial: dir(join(cache, `postgres-18-bbbbbbbbbb-initdb.partial-${dead}`), 200_000, 2 * HOURS),
      oldCopy: dir(join(root, 'bin-postgres-17-cccccccccc'), 100_000, 2 * DAYS),
      staged: dir(join(root, `warm-save-${dead}`), 50_000, 2 * HOURS),
    };
    const kept = {
      livePartial: dir(join(root, `bin-postgres-18-dddddddddd.partial-${process.pid}`)), // this process writes it
      recentCopy: dir(join(root, 'bin-postgres-18-eeeeeeeeee')), // used by a start a moment ago
      usedCopy: join(root, 'bin-postgres-18-ffffffffff'),
    };
    // A server of ours runs from its copy: a process started from the copy's bin/postgres.
    mkdirSync(join(kept.usedCopy, 'bin'), { recursive: true });
    cpSync('/bin/sleep', join(kept.usedCopy, 'bin', 'postgres'));
    running = spawn(join(kept.usedCopy, 'bin', 'postgres'), ['300'], { stdio: 'ignore' });
    const old = new Date(Date.now() - 2 * DAYS);
    utimesSync(kept.usedCopy, old, old);
    // Ours by name but not by place, ours by place but not by name, and not a directory.
    const target = dir(join(iso.root, 'elsewhere'));
    const foreign = [
      dir(join(cache, `warm-save-${dead}`)),
      dir(join(cache, 'bin-postgres-18-0000000000')),
      dir(join(root, `postgres-18-1111111111-initdb.partial-${dead}`)),
      dir(join(root, 'bin-postgres-18-notahash')),
      dir(join(root, `warm-save-${dead}x`)),
      dir(join(root, 'other-tool')),
    ];
    writeFileSync(join(root, `bin-postgres-18-2222222222.partial-${dead}`), 'a file, not a copy');
    symlinkSync(target, join(root, `warm-save-${dead + 1}`));
    foreign.push(join(root, `bin-postgres-18-2222222222.partial-${dead}`), join(root, `warm-save-${dead + 1}`), join(target, 'content'));

    const doctor = JSON.parse((await runCli(['doctor', '--json'], env)).stdout) as DoctorJson;
    const binaries = doctor.checks.find((c) => c.id === 'stray-binaries')!;
    // Only the copy unused for a day: the one a start used a moment ago is no news, the running one is in use.
    expect(binaries.title).toBe('binaries copies no server has used for 1d: 1, 98 KB in all');
    expect(binaries.fix).toMatch(/^fast-test-db clean --older-than 1d\b/);
    const partials = doctor.checks.find((c) => c.id === 'stray-partial')!;
    expect(partials.title).toBe('partial copies whose writer was killed: 2, 488 KB in all');
    expect(partials.detail).not.toContain(kept.livePartial);

    const before = tree(iso.root);
    const dry = await cleanJson(['--older-than', '1h', '--dry-run'], env);
    expect(pathsWith(dry, 'would remove').sort()).toEqual(Object.values(stale).sort());
    expect(dry.files.find((f) => f.path === stale.binPartial)!.bytes).toBe(300_000);
    expect(tree(iso.root)).toEqual(before);

    const report = await cleanJson(['--older-than', '1h'], env);
    expect(report.ok).toBe(true);
    expect(pathsWith(report, 'removed').sort()).toEqual(Object.values(stale).sort());
    const why = Object.fromEntries(report.files.filter((f) => f.action === 'kept').map((f) => [f.path, f.reason]));
    expect(why).toEqual({
      [kept.livePartial]: `process ${process.pid} is still writing it`,
      [kept.recentCopy]: 'used within 60m',
      [kept.usedCopy]: `process ${running.pid} runs from it`,
    });
    for (const p of Object.values(stale)) expect(existsSync(p)).toBe(false);
    for (const p of [...Object.values(kept), ...foreign]) expect(existsSync(p), p).toBe(true);

    // Once nothing runs from it, the copy goes too; the one used a moment ago goes with --older-than 0.
    running.kill('SIGKILL');
    expect(await waitFor(() => !pidAlive(running!.pid), 10_000)).toBe(true);
    const all = await cleanJson(['--older-than', '0'], env);
    expect(pathsWith(all, 'removed')).toEqual([kept.recentCopy, kept.usedCopy]);
    for (const p of foreign) expect(existsSync(p), p).toBe(true);
  });
});
