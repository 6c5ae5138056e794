/**
 * An adapter used alone (no runner global setup): test files run as consecutive processes. Within
 * the keeper's grace period the next one joins the same server and its template; after it, the
 * server stops and its folder goes.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateCount, privateDataRoot, removeDataRoot, runWorker, serverPids, alive, waitFor } from '../core/helpers.js';

describe('grace period after the last client', () => {
  const dataRoot = privateDataRoot('grace');
  const work = mkdtempSync(join('/tmp', 'ftdb-grace-'));
  const migrationFile = join(work, '001_item.sql');
  writeFileSync(migrationFile, 'CREATE TABLE item (id serial PRIMARY KEY, label text);\n');
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('4 consecutive processes share one server and one template build, then the server stops and leaves nothing', async () => {
    const counter = join(work, 'shared.log');
    const env = { DATA_ROOT: dataRoot, COUNTER_FILE: counter, MIGRATION_GLOB: migrationFile, WORKER: '1', FAST_TEST_DB_GRACE_MS: '8000' };
    const results: Array<{ url: string; stateDir: string }> = [];
    for (let i = 0; i < 4; i++) results.push(await runWorker(env));
    expect(new Set(results.map((r) => r.url.split('/')[2])).size).toBe(1);
    expect(migrateCount(counter)).toBe(1);
    const [pid] = serverPids(dataRoot);
    expect(alive(pid!)).toBe(true);
    // Grace over (8 s after the last client), the keeper stops it and removes its folder.
    expect(await waitFor(() => !existsSync(results[0]!.stateDir), 30_000)).toBe(true);
  });

  it('with graceMs 0 every process starts its own server and builds again', async () => {
    const counter = join(work, 'alone.log');
    // Without the warm copy: with it, a later process may start from the copy the previous one's
    // server saved, template included (the warm start, tested in processes.test.ts).
    const env = {
      DATA_ROOT: dataRoot,
      COUNTER_FILE: counter,
      MIGRATION_GLOB: migrationFile,
      WORKER: '1',
      FAST_TEST_DB_GRACE_MS: '0',
      FAST_TEST_DB_DATA_CACHE: '0',
    };
    for (let i = 0; i < 2; i++) {
      const r = await runWorker(env);
      expect(await waitFor(() => !existsSync(r.stateDir), 20_000)).toBe(true);
    }
    expect(migrateCount(counter)).toBe(2);
  });
});
