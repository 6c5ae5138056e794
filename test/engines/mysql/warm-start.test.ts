/**
 * The MariaDB/MySQL warm start: a cold start of a project whose template inputs did not change
 * starts from the data directory saved at the last clean stop, and runs no migration.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, keeperPids, migrateCount, privateDataRoot, removeDataRoot, serverPids, startWorker, waitFor } from '../../core/helpers.js';
import { listDir } from '../../../src/server/os/shared-files.js';
import { WARM_COPY_NAME, WARM_SAVE_NAME } from '../../../src/server/os/copy-names.js';
import { treeBytes } from '../../../src/server/os/warm-cache.js';

describe('MariaDB warm start (on by default)', () => {
  const roots = [privateDataRoot('my-warm-a'), privateDataRoot('my-warm-b')];
  const work = mkdtempSync(join('/tmp', 'ftdb-my-warm-'));
  const counter = join(work, 'migrations.log');
  const cache = join(work, 'cache');
  // graceMs 0: the server stops (and its data directory is saved) as soon as the worker exits.
  const env = { COUNTER_FILE: counter, WORKER: '1', FAST_TEST_DB_CACHE_DIR: cache, FAST_TEST_DB_GRACE_MS: '0', CACHE_KEY: 'warm-v1' };
  const copies = () => listDir(cache).filter((d) => WARM_COPY_NAME.test(d) && d.startsWith('mysql-'));
  const saving = (dataRoot: string) => listDir(dataRoot).some((u) => listDir(join(dataRoot, u)).some((d) => WARM_SAVE_NAME.test(d)));
  /** One worker on a fresh server; then wait until its keeper stopped the server and saved what it saves. */
  const coldRun = async (dataRoot = roots[0]!, extra: Record<string, string> = {}) => {
    const { line, exited } = startWorker({ ...env, DATA_ROOT: dataRoot, ...extra }, 'test/fixtures/mysql/worker.mts');
    const result = await line;
    await exited;
    // The keeper too: between its server's exit and its exit it puts the data directory aside to be saved.
    expect(await waitFor(() => !serverPids(dataRoot).some(alive) && !keeperPids(dataRoot).some(alive) && !saving(dataRoot), 20_000)).toBe(
      true,
    );
    return result;
  };
  afterAll(async () => {
    for (const r of roots) await removeDataRoot(r);
    rmSync(work, { recursive: true, force: true });
  });

  it('a second cold start runs migrate 0 times, and the template and its seed rows are there', async () => {
    const first = await coldRun();
    expect(first.built).toBe(true);
    expect(copies()).toHaveLength(1);
    // The redo log (256 MB allocated) is saved without its unwritten tail.
    expect(treeBytes(join(cache, copies()[0]!))).toBeLessThan(64 * 1024 * 1024);
    const second = await coldRun();
    expect(second.built).toBe(false);
    expect(second.template).toBe(first.template);
    expect(second.kinds).toBe(2);
    expect(migrateCount(counter)).toBe(1);
  });

  it('an unchanged run does not write the copy again; changed inputs build and save anew', async () => {
    const savedAt = () => statSync(join(cache, copies()[0]!, 'ibdata1')).mtimeMs;
    const before = savedAt();
    expect((await coldRun()).built).toBe(false);
    expect(savedAt()).toBe(before);
    expect((await coldRun(roots[0], { CACHE_KEY: 'warm-v2' })).built).toBe(true);
    expect(migrateCount(counter)).toBe(2);
    expect(savedAt()).toBeGreaterThan(before);
    const again = await coldRun(roots[0], { CACHE_KEY: 'warm-v2' });
    expect(again.built).toBe(false);
    expect(again.kinds).toBe(2);
  });

  it('a corrupt copy is discarded and replaced, never a failure', async () => {
    writeFileSync(join(cache, copies()[0]!, 'ibdata1'), 'not a tablespace');
    const run = await coldRun(roots[0], { CACHE_KEY: 'warm-v2' });
    expect(run.built).toBe(true); // initialised from scratch instead
    expect(run.kinds).toBe(2);
    expect(migrateCount(counter)).toBe(3);
    expect((await coldRun(roots[0], { CACHE_KEY: 'warm-v2' })).built).toBe(false); // the replacement serves the next run
  });

  it('a copy that starts but whose account table is damaged is discarded too, within seconds', async () => {
    writeFileSync(join(cache, copies()[0]!, 'mysql', 'global_priv.MAD'), 'not an Aria table');
    const began = Date.now();
    const run = await coldRun(roots[0], { CACHE_KEY: 'warm-v2' });
    expect(run.built).toBe(true);
    expect(run.kinds).toBe(2);
    expect(Date.now() - began).toBeLessThan(30_000);
    expect((await coldRun(roots[0], { CACHE_KEY: 'warm-v2' })).built).toBe(false);
  }, 180_000);

  it('two cold starts at once (two servers, one cache) neither break each other nor the copy', async () => {
    const both = await Promise.all(roots.map((r) => coldRun(r, { CACHE_KEY: 'warm-v3' })));
    expect(both.every((r) => r.built && r.kinds === 2)).toBe(true);
    expect(copies().length).toBeLessThanOrEqual(2);
    const restored = await Promise.all(roots.map((r) => coldRun(r, { CACHE_KEY: 'warm-v3' })));
    expect(restored.map((r) => [r.built, r.kinds])).toEqual([
      [false, 2],
      [false, 2],
    ]);
    expect(migrateCount(counter)).toBe(6);
  });

  it('a template from migrate alone (scoped to its run) is never saved', async () => {
    rmSync(cache, { recursive: true, force: true });
    const run = await coldRun(roots[0], { NO_KEY: '1' });
    expect(run.built).toBe(true);
    expect(copies()).toHaveLength(0);
  });
});
