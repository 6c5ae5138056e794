/**
 * The run's end drops its databases on a connection the global setup opened ahead (standby.ts),
 * and a run drops databases left under its id before it starts only when the id was given to it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRun } from '../../src/runners/shared/global.js';
import { workerTarget } from '../../src/runners/shared/handoff.js';
import { waitFor } from '../core/helpers.js';
import { startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';

let plain: PlainPostgres;
const cwd = mkdtempSync(join(tmpdir(), 'ftdb-standby-'));
const saved = { ...process.env };

beforeAll(async () => {
  plain = await startPlainPostgres();
  process.env.FAST_TEST_DB_URL = plain.url;
  process.env.FAST_TEST_DB_QUIET = '1';
});
afterAll(async () => {
  process.env = saved;
  await plain?.stop();
  rmSync(cwd, { recursive: true, force: true });
});

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client(plain.url);
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const databasesOf = (run: string) =>
  admin(async (c) =>
    (await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`%${run}%`])).rows.map((r) => r.datname),
  );

/** The other idle connections to the admin database: the run's held one, once it is open. */
const idleOthers = () =>
  admin(
    async (c) =>
      (
        await c.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = 'postgres' AND state = 'idle' AND pid <> pg_backend_pid()",
        )
      ).rows,
  );

test('the run drops its databases at its end even when the server closed the connection held for it', async () => {
  const run = await startRun({ cacheKey: 'standby' }, { cwd, workers: 2 });
  const ahead = ['1', '2'].map((w) => workerTarget(run.handoff, w).name);
  await waitFor(async () => {
    const names = await databasesOf(run.handoff.run);
    return ahead.every((n) => names.includes(n));
  }, 10_000);
  expect(await databasesOf(run.handoff.run)).toEqual(expect.arrayContaining(ahead));
  // The clones' own connection closes as they end; the one left idle after that is the held one.
  let held: { pid: number }[] = [];
  await waitFor(async () => (held = await idleOthers()).length > 0, 10_000);
  expect(held).toHaveLength(1);
  await admin((c) => c.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [held.map((h) => h.pid)]));
  await run.teardown();
  expect(await databasesOf(run.handoff.run)).toEqual([]);
  expect(await idleOthers()).toEqual([]);
});

test("the run's end finishes in a process that has nothing else to wait for", () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../fixtures/runners/standby-exit.ts'), cwd], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 60_000,
  });
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('ended\n');
  expect(r.status).toBe(0);
});

test('a run id given to the run: what an earlier run left under it is dropped before the workers start', async () => {
  process.env.FAST_TEST_DB_RUN_ID = 'rgiven';
  try {
    const first = await startRun({ cacheKey: 'standby' }, { cwd, workers: 1 });
    const left = workerTarget(first.handoff, '1').name;
    // Its clone ahead is done once its databases are listed; the run ends without its teardown, as a killed one would.
    await waitFor(async () => (await databasesOf('rgiven')).includes(left), 5_000);
    expect(await databasesOf('rgiven')).toContain(left);
    const again = await startRun({ cacheKey: 'standby' }, { cwd });
    expect(again.handoff.run).toBe('rgiven');
    expect(await databasesOf('rgiven')).toEqual([]);
    await again.teardown();
  } finally {
    delete process.env.FAST_TEST_DB_RUN_ID;
  }
});
