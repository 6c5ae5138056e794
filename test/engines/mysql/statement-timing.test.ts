/**
 * Statement timing on every MySQL/MariaDB driver, against a MariaDB started by the library: each
 * driver method returns what it returns without timing (mysql2's callback API its Query, whose
 * then() throws; the promise APIs their results), each statement is counted once with the time it
 * was in flight, the modules keep their properties, and the library's own connections are not counted.
 */
import { createRequire } from 'node:module';
import { types } from 'node:util';
import mariadb from 'mariadb';
import type * as MariadbCallback from 'mariadb/callback';
import mysql2 from 'mysql2';
import mysql2p from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../src/index.js';
import { instrumentDrivers, timingSince, timingSnapshot } from '../../../src/reporters/query-timing.js';
import { privateDataRoot, removeDataRoot } from '../../core/helpers.js';

const dataRoot = privateDataRoot('my-timing');
let db: TestDatabase;
let conf: { host: string; port: number; user: string; password: string; database: string };
const load = createRequire(import.meta.url);
// Neither has an ESM entry Node resolves by this name, and mysqljs ships no types.
const mariadbCallback = load('mariadb/callback') as typeof MariadbCallback;
const mysql = load('mysql') as any;
const shapes = () =>
  Object.fromEntries(
    ['mysql2', 'mysql2/promise', 'mysql', 'mariadb', 'mariadb/callback'].map((m) => [m, Object.keys(load(m) as object).sort()]),
  );
let before: ReturnType<typeof shapes>;

beforeAll(async () => {
  db = await createTestDatabase({
    engine: 'mysql',
    dataRoot,
    prefix: 'ftmyt',
    cacheKey: 'timing-v1',
    async migrate(url) {
      const c = await mysql2p.createConnection({ uri: url });
      await c.query('CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT NOT NULL)');
      await c.end();
    },
  });
  const u = new URL(db.url);
  conf = {
    host: u.hostname,
    port: Number(u.port),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
  };
  before = shapes();
  expect(instrumentDrivers(load)).toEqual({ timed: ['pg', 'postgres', 'mysql2', 'mysql', 'mariadb'], unseen: [], skipped: [] });
  // A second setup (the next test file, another copy of the library) does not wrap twice.
  instrumentDrivers(load);
}, 120_000);

afterAll(async () => {
  await db?.destroy({ force: true });
  await removeDataRoot(dataRoot);
});

/** Runs `fn`, and returns the statements and in-flight time counted meanwhile. */
async function counted(fn: () => Promise<unknown>): Promise<{ queries: number; busyMs: number }> {
  const start = timingSnapshot();
  await fn();
  return timingSince(start);
}

const cb = <T>(run: (done: (err: unknown, value?: T) => void) => void) =>
  new Promise<T>((res, rej) => run((err, value) => (err ? rej(err) : res(value as T))));

it('names what it cannot see: Prisma without a driver adapter', () => {
  const noAdapters = Object.assign((id: string) => load(id), {
    resolve(id: string) {
      if (id.startsWith('@prisma/adapter-')) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      return load.resolve(id);
    },
  });
  expect(instrumentDrivers(noAdapters).unseen).toEqual(['@prisma/client']);
});

it('leaves every module with the properties it had', () => {
  expect(shapes()).toEqual(before);
  expect(typeof mysql.createPool).toBe('function');
  expect(typeof mysql2.createPool).toBe('function');
});

describe('mysql2', () => {
  it('callback API: query() still returns its Query, not a promise; each statement counted once', async () => {
    const c = mysql2.createConnection(conf);
    try {
      let returned: unknown;
      const n = await counted(async () => {
        const rows = await cb<Array<{ s: number }>>((done) => {
          returned = c.query('SELECT SLEEP(0.05) AS s', done as never);
        });
        expect(rows).toEqual([{ s: 0 }]);
        await cb((done) => (c as any).execute('INSERT INTO t (v) VALUES (?)', [1], done));
        // Without a callback: an emitter that ends.
        await new Promise((res, rej) => c.query('SELECT 1 AS one').on('end', res).on('error', rej));
      });
      expect(types.isPromise(returned)).toBe(false);
      expect((returned as object).constructor.name).toBe('Query');
      // Its then() still refuses, as without timing: awaiting it is the user's mistake to see.
      expect(() => (returned as { then(): void }).then()).toThrow(/not a promise/);
      expect(n.queries).toBe(3);
      expect(n.busyMs).toBeGreaterThanOrEqual(45);
      // A failing statement reaches the callback with its error, and ends.
      const err = await cb((done) => c.query('SELECT nope FROM t', done)).catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe('ER_BAD_FIELD_ERROR');
    } finally {
      c.end();
    }
  });

  it('promise API and pools', async () => {
    const c = await mysql2p.createConnection(conf);
    const pool = mysql2p.createPool({ ...conf, connectionLimit: 2 });
    try {
      const n = await counted(async () => {
        const [rows] = await c.query('SELECT SLEEP(0.05) AS s');
        expect(rows).toEqual([{ s: 0 }]);
        const [res] = await c.execute('INSERT INTO t (v) VALUES (?)', [2]);
        expect((res as { affectedRows: number }).affectedRows).toBe(1);
        const [[one]] = (await pool.query('SELECT 1 AS one')) as unknown as [[{ one: number }]];
        expect(one).toEqual({ one: 1 });
      });
      expect(n.queries).toBe(3);
      expect(n.busyMs).toBeGreaterThanOrEqual(45);
      await expect(c.query('SELECT nope FROM t')).rejects.toMatchObject({ code: 'ER_BAD_FIELD_ERROR' });
    } finally {
      await c.end();
      await pool.end();
    }
  });
});

describe('mysql (mysqljs)', () => {
  it('connection and pool, callbacks and a streamed query', async () => {
    const c = mysql.createConnection(conf);
    const pool = mysql.createPool({ ...conf, connectionLimit: 2 });
    try {
      let returned: unknown;
      const n = await counted(async () => {
        const rows = await cb<Array<{ s: number }>>((done) => {
          returned = c.query('SELECT SLEEP(0.05) AS s', done);
        });
        expect(rows.map((r) => ({ ...r }))).toEqual([{ s: 0 }]);
        await cb((done) => pool.query('INSERT INTO t (v) VALUES (?)', [3], done));
        await new Promise((res, rej) => c.query('SELECT 1 AS one').on('end', res).on('error', rej));
      });
      expect(types.isPromise(returned)).toBe(false);
      expect((returned as object).constructor.name).toBe('Query');
      // The pool's query runs through a pooled connection's query: counted once.
      expect(n.queries).toBe(3);
      expect(n.busyMs).toBeGreaterThanOrEqual(45);
      const err = await cb((done) => c.query('SELECT nope FROM t', done)).catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe('ER_BAD_FIELD_ERROR');
    } finally {
      await cb((done) => c.end(done));
      await cb((done) => pool.end(done));
    }
  });
});

describe('mariadb', () => {
  it('promise API and pool', async () => {
    const c = await mariadb.createConnection(conf);
    const pool = mariadb.createPool({ ...conf, connectionLimit: 2 });
    try {
      const n = await counted(async () => {
        const p = c.query('SELECT SLEEP(0.05) AS s');
        expect(types.isPromise(p)).toBe(true);
        expect(((await p) as Array<{ s: unknown }>).map((r) => Number(r.s))).toEqual([0]);
        await c.execute('INSERT INTO t (v) VALUES (?)', [4]);
        await c.batch('INSERT INTO t (v) VALUES (?)', [[5], [6]]);
        expect([...((await pool.query('SELECT 1 AS one')) as unknown[])]).toEqual([{ one: 1 }]);
      });
      expect(n.queries).toBe(4);
      expect(n.busyMs).toBeGreaterThanOrEqual(45);
      await expect(c.query('SELECT nope FROM t')).rejects.toMatchObject({ code: 'ER_BAD_FIELD_ERROR' });
    } finally {
      await c.end();
      await pool.end();
    }
  });

  it('callback API: connection and pool', async () => {
    const c = mariadbCallback.createConnection(conf);
    const pool = mariadbCallback.createPool({ ...conf, connectionLimit: 2 });
    try {
      let returned: unknown;
      const n = await counted(async () => {
        const rows = await cb<Array<{ s: unknown }>>((done) => {
          returned = c.query('SELECT SLEEP(0.05) AS s', done);
        });
        expect(rows.map((r) => Number(r.s))).toEqual([0]);
        await cb((done) => c.execute('INSERT INTO t (v) VALUES (?)', [7], done));
        await cb((done) => pool.query('SELECT 1 AS one', done));
      });
      expect(types.isPromise(returned)).toBe(false);
      expect(n.queries).toBe(3);
      expect(n.busyMs).toBeGreaterThanOrEqual(45);
      const err = await cb((done) => c.query('SELECT nope FROM t', done)).catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe('ER_BAD_FIELD_ERROR');
    } finally {
      await cb((done) => c.end(done));
      await cb((done) => pool.end(done));
    }
  });
});

it("the library's own connections are neither counted nor changed", async () => {
  const n = await counted(async () => {
    await db.reset();
    await db.recreate();
  });
  expect(n).toEqual({ queries: 0, busyMs: 0 });
});

it('leaves no statement in flight once they all ended, failed ones included', async () => {
  const start = timingSnapshot();
  await new Promise((r) => setTimeout(r, 50));
  expect(timingSince(start).busyMs).toBeLessThan(5);
});

it("Prisma's mariadb driver adapter is counted through mariadb", async () => {
  const { PrismaMariaDb } = await import('@prisma/adapter-mariadb');
  const adapter = await new PrismaMariaDb({ ...conf, connectionLimit: 1 }).connect();
  try {
    const t = await counted(() => adapter.queryRaw({ sql: 'SELECT 1 AS one', args: [], argTypes: [] }));
    expect(t.queries).toBeGreaterThanOrEqual(1);
  } finally {
    await adapter.dispose();
  }
});
