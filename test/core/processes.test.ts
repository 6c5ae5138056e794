/** Many processes, one server, one template build; and no server outlives its clients. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, migrateCount, privateDataRoot, removeDataRoot, runWorker, serverPids, startWorker, waitFor } from './helpers.js';
import { listDir } from '../../src/server/os/shared-files.js';
import { listOwnedServers } from '../../src/server/keeper/server-state.js';
import { contextOf } from '../../src/options/context.js';
import { WARM_COPY_NAME, WARM_SAVE_NAME } from '../../src/server/os/copy-names.js';

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

describe('initdb cache (on by default)', () => {
  const dataRoot = privateDataRoot('initdb');
  const work = mkdtempSync(join('/tmp', 'ftdb-initdb-'));
  const cache = join(work, 'cache');
  const env = { DATA_ROOT: dataRoot, COUNTER_FILE: join(work, 'c.log'), WORKER: '1', FAST_TEST_DB_CACHE_DIR: cache };
  // The server's own directory: beside it may be a copy of the binaries (a project only root can enter).
  const serverLog = () => readFileSync(join(listOwnedServers(contextOf({ dataRoot }), { all: true })[0]!.dir, 'server.log'), 'utf8');
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('runs initdb once, then starts fresh servers from its copy', async () => {
    await runWorker(env);
    expect(serverLog()).toMatch(/database system will be owned by/);
    expect(await waitFor(() => listDir(cache).some((d) => d.endsWith('-initdb')), 15_000)).toBe(true);
    expect(await waitFor(() => !serverPids(dataRoot).some(alive), 15_000)).toBe(true);
    const second = await runWorker(env);
    expect(second.built).toBe(true); // a new server: the template is built again, initdb is not run
    expect(serverLog()).not.toMatch(/database system will be owned by/);
  });
});
