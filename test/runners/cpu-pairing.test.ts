/**
 * CPU pairing (src/runners/shared/cpu-pairing.ts), read back from /proc: which CPUs the worker's thread and the
 * server's sessions may run on, on servers the library started (both engines) and on one it did not.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntitySchema } from 'typeorm';
import { typeormTestDb } from '../../adapters/typeorm/index.js';
import { drizzleTestDb } from '../../adapters/drizzle/index.js';
import { allowedList, pairableCpus, pairingCpu, parseCpuList, threadId } from '../../src/runners/shared/cpu-pairing.js';
import type { ServerInfo } from '../../src/types.js';
import { startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';

const Point = new EntitySchema<{ id: number; amount: number }>({
  name: 'point',
  columns: { id: { type: Number, primary: true, generated: 'increment' }, amount: { type: 'int' } },
});
const entities = [Point];

const cpusOf = (task: number) => parseCpuList(allowedList(task));
const thread = threadId;
const before = cpusOf(thread());

const owned: Pick<ServerInfo, 'owned' | 'provider' | 'flavor'> = { owned: true, provider: 'embedded', flavor: 'postgres' };

describe('which worker gets which CPU', () => {
  it('parses the kernel CPU lists', () => {
    expect(parseCpuList('0-2,5,7-8\n')).toEqual([0, 1, 2, 5, 7, 8]);
    expect(parseCpuList('3')).toEqual([3]);
  });

  it.runIf(process.platform === 'linux')('gives numbered workers a CPU each, and nothing to the rest', () => {
    const cpus = [4, 6];
    const jest = (n: string) => ({ JEST_WORKER_ID: n });
    expect(pairingCpu(owned, cpus, {}, jest('1'))).toEqual({ cpu: 4 });
    expect(pairingCpu(owned, cpus, {}, jest('2'))).toEqual({ cpu: 6 });
    expect(pairingCpu(owned, cpus, {}, { VITEST_POOL_ID: '3' })).toMatchObject({ off: /more workers than the 2 CPUs/ });
    expect(pairingCpu(owned, undefined, {}, jest('1'))).toMatchObject({ off: /turned off/ });
    expect(pairingCpu({ owned: false, provider: 'external', flavor: 'postgres' }, cpus, {}, jest('1'))).toMatchObject({
      off: /not a server/,
    });
    expect(pairingCpu({ owned: true, provider: 'container', flavor: 'postgres' }, cpus, {}, jest('1'))).toMatchObject({
      off: /not a server/,
    });
    // Playwright's workers drive browsers, which would inherit the one CPU.
    expect(pairingCpu(owned, cpus, {}, { TEST_PARALLEL_INDEX: '0' })).toMatchObject({ off: /not a numbered/ });
    expect(pairingCpu(owned, cpus, {}, {})).toMatchObject({ off: /not a numbered/ });
    expect(pairingCpu(owned, cpus, { worker: '2' }, {})).toEqual({ cpu: 6 });
    // Mocha counts its workers from 0, node:test from 1.
    expect(pairingCpu(owned, cpus, {}, { MOCHA_WORKER_ID: '0' })).toEqual({ cpu: 4 });
    expect(pairingCpu(owned, cpus, {}, { MOCHA_WORKER_ID: '1' })).toEqual({ cpu: 6 });
    expect(pairingCpu(owned, cpus, {}, { NODE_TEST_WORKER_ID: '2' })).toEqual({ cpu: 6 });
  });

  it.runIf(process.platform === 'linux')('pairs over the CPUs this process may use, unless turned off', () => {
    // Off by default: on suites it cost more than it saved (docs/how-it-works.md).
    expect(pairableCpus({}, {})).toBeUndefined();
    expect(pairableCpus({}, { FAST_TEST_DB_CPU_PAIRING: '1' })).toEqual(before);
    expect(pairableCpus({ cpuPairing: false }, { FAST_TEST_DB_CPU_PAIRING: '1' })).toBeUndefined();
    expect(pairableCpus({ cpuPairing: true }, { FAST_TEST_DB_CPU_PAIRING: '0' })).toEqual(before);
  });
});

describe.runIf(process.platform === 'linux')('pairing on servers we started', () => {
  it('TypeORM on PostgreSQL: the thread and every session of the pool share the CPU, and the thread is given back', async () => {
    const t = await typeormTestDb(
      { type: 'postgres', entities, synchronize: true },
      { prefix: 'ftdbcpu', worker: '1', schema: 'synchronize', cpuPairing: true },
    );
    try {
      const cpu = before[0]!;
      expect(cpusOf(thread())).toEqual([cpu]);
      // Five queries at once make the pool open more connections than initialize() did.
      await Promise.all(Array.from({ length: 5 }, () => t.dataSource.query('SELECT pg_sleep(0.05)')));
      const pids = async () =>
        (await t.dataSource.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).map(
          (r: { pid: number }) => r.pid,
        );
      expect((await pids()).length).toBeGreaterThan(1);
      // New connections are paired as the pool opens them, in the background.
      await expect.poll(async () => (await pids()).map(cpusOf), { timeout: 5_000 }).toEqual((await pids()).map(() => [cpu]));
    } finally {
      await t.close();
      await t.database.destroy();
    }
    expect(cpusOf(thread())).toEqual(before);
  });

  it('by default (off), nothing is pinned', async () => {
    const t = await typeormTestDb(
      { type: 'postgres', entities, synchronize: true },
      { prefix: 'ftdbcpu', worker: '1', schema: 'synchronize' },
    );
    try {
      const [{ pid }] = await t.dataSource.query('SELECT pg_backend_pid() AS pid');
      expect(cpusOf(pid)).toEqual(before);
      expect(cpusOf(thread())).toEqual(before);
    } finally {
      await t.close();
      await t.database.destroy();
    }
  });

  it('Drizzle on MariaDB: the session threads of mariadbd share the CPU', async () => {
    const { mysqlTable, int } = await import('drizzle-orm/mysql-core');
    const item = mysqlTable('item', { id: int('id').autoincrement().primaryKey(), n: int('n').notNull() });
    const t = await drizzleTestDb({
      schema: { item },
      engine: 'mysql',
      driver: 'mysql2',
      prefix: 'ftdbcpu',
      worker: '1',
      cpuPairing: true,
    });
    try {
      const cpu = before[0]!;
      await t.db.insert(item).values({ n: 1 });
      const tids = async () => {
        const client = (t.db as unknown as { $client: { query(s: string): Promise<[Array<{ TID: number }>]> } }).$client;
        const [rows] = await client.query('SELECT TID FROM information_schema.PROCESSLIST WHERE DB = DATABASE()');
        return rows.map((r) => Number(r.TID));
      };
      await expect.poll(async () => (await tids()).map(cpusOf), { timeout: 5_000 }).toEqual((await tids()).map(() => [cpu]));
      expect(cpusOf(thread())).toEqual([cpu]);
    } finally {
      await t.close();
      await t.database.destroy();
    }
    expect(cpusOf(thread())).toEqual(before);
  });
});

describe.runIf(process.platform === 'linux')('a server we do not own', () => {
  let plain: PlainPostgres;
  beforeAll(async () => {
    plain = await startPlainPostgres();
  });
  afterAll(() => plain?.stop());

  it('is never paired: its sessions and the thread keep their CPUs', async () => {
    const t = await typeormTestDb(
      { type: 'postgres', entities, synchronize: true },
      { url: plain.url, prefix: 'ftdbcpu', worker: '1', schema: 'synchronize', cpuPairing: true },
    );
    try {
      const [{ pid }] = await t.dataSource.query('SELECT pg_backend_pid() AS pid');
      const postmaster = Number(readFileSync(`${plain.dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
      expect(cpusOf(pid)).toEqual(cpusOf(postmaster));
      expect(cpusOf(thread())).toEqual(before);
    } finally {
      await t.close();
      await t.database.destroy();
    }
  });
});
