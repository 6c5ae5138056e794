/** MySQL/MariaDB across processes: one server, one template build, distinct schemas; no orphan after SIGKILL. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, migrateCount, privateDataRoot, removeDataRoot, serverPids, startWorker, waitFor } from '../../core/helpers.js';

const worker = (env: Record<string, string>) => startWorker(env, 'test/fixtures/mysql/worker.mts');

describe('MySQL workers in separate processes', () => {
  const dataRoot = privateDataRoot('my-procs');
  const work = mkdtempSync(join('/tmp', 'ftdb-my-procs-'));
  const counter = join(work, 'migrations.log');

  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('8 concurrent processes get distinct schemas from one template; migrate runs once', async () => {
    const runs = Array.from({ length: 8 }, (_, i) =>
      worker({ DATA_ROOT: dataRoot, COUNTER_FILE: counter, WORKER: String(i + 1), REUSE: '1' }),
    );
    const results = await Promise.all(runs.map((r) => r.line));
    await Promise.all(runs.map((r) => r.exited));
    expect(new Set(results.map((r) => r.name)).size).toBe(8);
    expect(new Set(results.map((r) => r.template)).size).toBe(1);
    expect(new Set(results.map((r) => r.url.split('/')[2])).size).toBe(1);
    expect(results.filter((r) => r.built)).toHaveLength(1);
    expect(results.every((r) => r.kinds === 2)).toBe(true); // seed rows reached every clone
    expect(migrateCount(counter)).toBe(1);
  });
});

describe('MySQL: SIGKILL of the only client', () => {
  const dataRoot = privateDataRoot('my-kill');
  const work = mkdtempSync(join('/tmp', 'ftdb-my-kill-'));
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('leaves no mariadbd/mysqld process and no data directory behind', async () => {
    const { child, line } = worker({ DATA_ROOT: dataRoot, COUNTER_FILE: join(work, 'c.log'), WORKER: '1', HOLD: '1' });
    const result = await line;
    const pids = serverPids(dataRoot);
    expect(pids).toHaveLength(1);
    expect(alive(pids[0]!)).toBe(true);
    const dataDir = join(result.stateDir, 'mysql');
    expect(existsSync(dataDir)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitFor(() => !alive(pids[0]!), 15_000)).toBe(true);
    expect(await waitFor(() => !existsSync(dataDir), 5_000)).toBe(true);
  });
});
