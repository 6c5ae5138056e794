/** Many processes, one server, one template build; and no server outlives its clients. */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  alive,
  migrateCount,
  privateDataRoot,
  removeDataRoot,
  ROOT,
  runWorker,
  runWorkerIn,
  serverPids,
  startWorker,
  waitFor,
} from './helpers.js';
import { listDir } from '../../src/server/os/shared-files.js';
import { contextOf } from '../../src/options/context.js';
import { INITDB_COPY_NAME, partialPath, WARM_COPY_NAME, WARM_SAVE_NAME } from '../../src/server/os/copy-names.js';
import { serversRoot } from '../../src/server/keeper/dirs.js';
import { retireCopy } from '../../src/server/os/warm-cache.js';
import { jsonLines, runCli } from '../cli/cli.js';

describe('workers in separate processes', () => {
  const dataRoot = privateDataRoot('procs');
  const work = mkdtempSync(join('/tmp', 'ftdb-procs-'));
  const migrationFile = join(work, '001_item.sql');
  const counter = join(work, 'migrations.log');
  writeFileSync(migrationFile, 'CREATE TABLE item (id serial PRIMARY KEY, label text);\n');
  const env = { DATA_ROOT: dataRoot, COUNTER_FILE: counter, MIGRATION_GLOB: migrationFile, REUSE: '1' };

  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('8 concurrent processes get distinct databases from one template; migrate runs once', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => runWorker({ ...env, WORKER: String(i + 1) })));
    expect(new Set(results.map((r) => r.name)).size).toBe(8);
    expect(new Set(results.map((r) => r.template)).size).toBe(1);
    expect(new Set(results.map((r) => r.url.split('/')[2])).size).toBe(1); // one server
    expect(results.filter((r) => r.built)).toHaveLength(1);
    expect(migrateCount(counter)).toBe(1);
  });

  it('a second run on the reused server runs migrate zero times', async () => {
    const again = await Promise.all([runWorker({ ...env, WORKER: '1' }), runWorker({ ...env, WORKER: '2' })]);
    expect(again.every((r) => !r.built)).toBe(true);
    expect(migrateCount(counter)).toBe(1);
  });

  it('changing one byte of a migration file builds a new template', async () => {
    writeFileSync(migrationFile, 'CREATE TABLE item (id serial PRIMARY KEY, label text);\n ');
    const result = await runWorker({ ...env, WORKER: '1' });
    expect(result.built).toBe(true);
    expect(migrateCount(counter)).toBe(2);
  });
});

describe('SIGKILL of the only client', () => {
  const dataRoot = privateDataRoot('kill');
  const work = mkdtempSync(join('/tmp', 'ftdb-kill-'));
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('leaves no postgres process behind a few seconds later', async () => {
    const { child, line } = startWorker({ DATA_ROOT: dataRoot, COUNTER_FILE: join(work, 'c.log'), WORKER: '1', HOLD: '1' });
    await line;
    const pids = serverPids(dataRoot);
    expect(pids).toHaveLength(1);
    expect(alive(pids[0]!)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitFor(() => !alive(pids[0]!), 10_000)).toBe(true);
  });
});

describe('warm start (on by default): the data directory with its templates, copied back', () => {
  const dataRoot = privateDataRoot('warm');
  const work = mkdtempSync(join('/tmp', 'ftdb-warm-'));
  const counter = join(work, 'migrations.log');
  const migrationFile = join(work, '001_item.sql');
  const cache = join(work, 'cache');
  writeFileSync(migrationFile, 'CREATE TABLE item (id serial PRIMARY KEY, label text);\n');
  // graceMs 0: the server stops (and its data directory is saved) as soon as the worker exits.
  const env = {
    DATA_ROOT: dataRoot,
    COUNTER_FILE: counter,
    WORKER: '1',
    MIGRATION_GLOB: migrationFile,
    FAST_TEST_DB_CACHE_DIR: cache,
    FAST_TEST_DB_GRACE_MS: '0',
  };
  const warmCopies = () => listDir(cache).filter((d) => WARM_COPY_NAME.test(d));
  const savedAt = () => statSync(join(cache, warmCopies()[0]!, 'global', 'pg_control')).mtimeMs;
  /** One worker on a fresh server, then wait until its keeper stopped the server (and saved what it saves). */
  const coldRun = async (extra: Record<string, string> = {}) => {
    const result = await runWorker({ ...env, ...extra });
    // The keeper moves the data directory aside and a process of its own copies it to the cache.
    const saving = () => listDir(dataRoot).some((u) => listDir(join(dataRoot, u)).some((d) => WARM_SAVE_NAME.test(d)));
    expect(await waitFor(() => !serverPids(dataRoot).some(alive) && !existsSync(result.stateDir) && !saving(), 15_000)).toBe(true);
    return result;
  };
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('a second cold start runs migrate 0 times: the template comes with the copied data directory', async () => {
    expect((await coldRun()).built).toBe(true);
    expect(warmCopies()).toHaveLength(1);
    const second = await coldRun();
    expect(second.built).toBe(false);
    expect(migrateCount(counter)).toBe(1);
  });

  it('an unchanged run does not write the copy again; a changed migration file builds and saves anew', async () => {
    const before = savedAt();
    await coldRun();
    expect(savedAt()).toBe(before);
    writeFileSync(migrationFile, 'CREATE TABLE item (id serial PRIMARY KEY, label text);\n ');
    expect((await coldRun()).built).toBe(true);
    expect(migrateCount(counter)).toBe(2);
    expect(savedAt()).toBeGreaterThan(before);
  });

  it('a corrupt copy is discarded and replaced, never a failure', async () => {
    writeFileSync(join(cache, warmCopies()[0]!, 'global', 'pg_control'), 'not a control file');
    expect((await coldRun()).built).toBe(true); // started from initdb's copy instead
    expect(migrateCount(counter)).toBe(3);
    expect((await coldRun()).built).toBe(false); // the replacement serves the next run
  });

  it('a template from migrate alone (scoped to its run) is never saved', async () => {
    rmSync(cache, { recursive: true, force: true });
    const { MIGRATION_GLOB: _, ...alone } = env;
    await runWorker(alone);
    expect(await waitFor(() => !serverPids(dataRoot).some(alive), 15_000)).toBe(true);
    expect(warmCopies()).toHaveLength(0);
  });
});

describe('cached data directory asked for (cacheDataDir: true)', () => {
  const dataRoot = privateDataRoot('cache');
  const work = mkdtempSync(join('/tmp', 'ftdb-cache-'));
  const counter = join(work, 'migrations.log');
  const env = {
    DATA_ROOT: dataRoot,
    COUNTER_FILE: counter,
    WORKER: '1',
    FAST_TEST_DB_DATA_CACHE: '1',
    FAST_TEST_DB_CACHE_DIR: join(work, 'cache'),
  };
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('lets a fresh server skip initdb and migrations', async () => {
    const first = await runWorker(env);
    expect(first.built).toBe(true);
    // The keeper saves the data directory after the server's clean shutdown.
    expect(await waitFor(() => listDir(join(work, 'cache')).some((d) => !d.includes('partial')), 15_000)).toBe(true);
    const second = await runWorker(env);
    expect(second.built).toBe(false);
    expect(second.template).toBe(first.template);
    expect(migrateCount(counter)).toBe(1);
  });
});

describe('initdb cache (on by default): once per user and machine, in the servers root', () => {
  const dataRoot = privateDataRoot('initdb');
  const work = mkdtempSync(join('/tmp', 'ftdb-initdb-'));
  // When we are root the server's account walks through it to a second project's binaries.
  chmodSync(work, 0o755);
  // No warm copy: each start below is initdb's or its copy's; the log says which (embedded-copies.ts).
  // No grace: the server stops with its worker, so that each run below starts one.
  const base = {
    FAST_TEST_DB_GRACE_MS: '0',
    DATA_ROOT: dataRoot,
    COUNTER_FILE: join(work, 'c.log'),
    WORKER: '1',
    FAST_TEST_DB_DATA_CACHE: '0',
    DEBUG: 'fast-test-db:postgres',
  };
  const cache = join(work, 'cache');
  const root = serversRoot(contextOf({ dataRoot }));
  const copies = () => listDir(root).filter((n) => INITDB_COPY_NAME.test(n));
  const run = (cwd = ROOT, cacheDir = cache) => runWorkerIn(cwd, { ...base, FAST_TEST_DB_CACHE_DIR: cacheDir });
  /** Another project: its own folder (its node_modules linked to this repository's, so another binaries path) and an empty cache. */
  const project = (name: string) => {
    const dir = join(work, name);
    mkdirSync(dir, { mode: 0o755 });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return { dir, cache: join(dir, 'cache') };
  };
  /** The copy's saver (detached, after initdb) has finished once nothing is staged beside the servers. */
  const savesDone = () => waitFor(() => !listDir(root).some((n) => WARM_SAVE_NAME.test(n)), 30_000);
  let copy = '';
  let firstServer = '';
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('runs initdb once, keeps its output beside the servers (ours alone, not in the project cache), then starts from it', async () => {
    const first = await run();
    firstServer = first.result.stateDir;
    expect(first.stderr).toMatch(new RegExp(`no usable copy at ${root}/initdb-postgres-18-[0-9a-f]+\\n`));
    expect(await waitFor(() => copies().length === 1, 30_000)).toBe(true);
    copy = join(root, copies()[0]!);
    const st = statSync(copy);
    expect([st.uid, st.mode & 0o077]).toEqual([process.getuid!(), 0]);
    expect(listDir(cache).filter((n) => n.includes('initdb'))).toEqual([]);
    const second = await run();
    expect(second.stderr).toContain(`data directory restored from ${copy}\n`);
  });

  it('a second project (another folder, an empty cache) restores the same copy: no initdb, nothing saved again', async () => {
    await savesDone();
    const before = statSync(copy).ino;
    const other = project('other');
    const { result, stderr } = await run(other.dir, other.cache);
    expect(stderr).toContain(`data directory restored from ${copy}\n`);
    expect(stderr).not.toContain('no usable copy');
    // Its own server (a folder per project), started from the copy.
    expect(result.stateDir).not.toBe(firstServer);
    await savesDone();
    expect(statSync(copy).ino).toBe(before);
    expect(copies()).toEqual([basename(copy)]);
  });

  it('a copy others may write, or another account owns, is not used and not replaced: initdb runs', async () => {
    await savesDone();
    const before = statSync(copy).ino;
    chmodSync(copy, 0o777);
    const opened = await run();
    expect(opened.stderr).toMatch(new RegExp(`not using ${copy}: .*may be written by other users`));
    expect(opened.stderr).not.toContain('data directory restored from');
    await savesDone();
    expect([statSync(copy).ino, statSync(copy).mode & 0o777]).toEqual([before, 0o777]);
    chmodSync(copy, 0o700);
    if (process.getuid!() === 0) {
      chownSync(copy, 65534, 65534);
      const foreign = await run();
      expect(foreign.stderr).toMatch(new RegExp(`not using ${copy}: .*is another user's`));
      expect(foreign.stderr).not.toContain('data directory restored from');
      await savesDone();
      expect(statSync(copy).uid).toBe(65534);
      chownSync(copy, 0, 0);
    }
    expect((await run()).stderr).toContain(`data directory restored from ${copy}\n`);
  });

  it('a copy left half written (a killed saver) is never used: initdb runs, that start removes it, a whole copy is saved', async () => {
    await savesDone();
    const dead = spawnSync('true').pid;
    const partial = partialPath(copy, dead);
    renameSync(copy, partial);
    const { stderr } = await run();
    expect(stderr).toContain(`no usable copy at ${copy}\n`);
    expect(existsSync(partial)).toBe(false);
    expect(await waitFor(() => existsSync(join(copy, 'PG_VERSION')), 30_000)).toBe(true);
  });

  it('two projects whose first runs start at once: each runs initdb, one whole copy is kept, and a third project restores it', async () => {
    await savesDone();
    retireCopy(copy);
    const [a, b, c] = [project('first-a'), project('first-b'), project('third')];
    const both = await Promise.all([run(a.dir, a.cache), run(b.dir, b.cache)]);
    for (const r of both) expect(r.stderr).toContain(`no usable copy at ${copy}\n`);
    await savesDone();
    expect(copies()).toEqual([basename(copy)]);
    expect(listDir(root).filter((n) => n.startsWith(`${basename(copy)}.`))).toEqual([]);
    expect((await run(c.dir, c.cache)).stderr).toContain(`data directory restored from ${copy}\n`);
  });

  it('clean keeps it while it is in use (--older-than 1d) and removes it with --older-than 0', async () => {
    await savesDone();
    const env = { ...process.env, FAST_TEST_DB_DATA_ROOT: dataRoot };
    const clean = async (olderThan: string) => {
      const r = await runCli(['clean', '--older-than', olderThan, '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      return jsonLines<{ files: Array<{ path: string; kind: string; action: string }> }>(r.stdout)[0]!.files.find((f) => f.path === copy);
    };
    expect(await clean('1d')).toMatchObject({ kind: 'initdb', action: 'kept' });
    expect(existsSync(copy)).toBe(true);
    expect(await clean('0')).toMatchObject({ kind: 'initdb', action: 'removed' });
    expect(existsSync(copy)).toBe(false);
  });
});
