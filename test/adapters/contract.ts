/**
 * The adapter contract: what every ORM adapter does on every engine, as one suite that one small
 * file per ORM × engine runs with that ORM's fixture (test/adapters/<orm>-<engine>.test.ts), the
 * way db0 runs one suite over every connector. What only one ORM does stays in test/<orm>/.
 *
 * The cases: the template is built once and cloned for each worker; each worker's database is its
 * own; the ORM reaches a PostgreSQL of ours over its socket; reset() and recreate() through the handle; the connection half attaches to a database the
 * all-in-one entry made; and fastInsert's contract (one object in, one record out; an array in, an
 * array out in input order; `returning: false`, nothing; single-row calls started together
 * coalesced where the engine allows it, each settling as if alone; a row the server refuses is
 * QUERY_FAILED and leaves none of its array behind); and withRollback's, where the adapter has it
 * (what is written inside is seen there only and gone after, errors come out as they were, the
 * ORM's own transactions inside are savepoints, connections go back to the pool).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFastTestDbError } from '../../src/errors.js';
import type { EngineName, TestDatabase } from '../../src/types.js';
import { countInserts, type InsertCounter } from '../helpers/insert-counter.js';

export type Row = Record<string, unknown>;

/** One ORM's calls on one database, reduced to what the contract is about. */
export interface OrmSession {
  /** The field that takes the given text, and the generated key. */
  text: string;
  key: string;
  insert(rows: Row | Row[], options?: { returning?: false; coalesce?: false }): Promise<unknown>;
  /** The stored rows whose text starts with `prefix`, as [key, text], in key order. */
  stored(prefix: string): Promise<Array<[key: number, text: string]>>;
  /** Rows of a raw query on the ORM's own connection. */
  query(sql: string): Promise<Row[]>;
  /** The driver object the INSERTs go through, and its method that sends them, when the test can reach it. */
  sends?: { target: object; method: string };
  /** Closes the ORM's connections; the database stays. */
  close(): Promise<void>;
  /** The adapter's withRollback on this session, `fn` given a session on its transaction; absent where the adapter has none. */
  withRollback?<T>(fn: (tx: OrmSession) => Promise<T>): Promise<T>;
  /** The ORM's own transaction opened on this session, committed once `fn` resolves (inside withRollback: a savepoint). */
  transaction?(fn: (tx: OrmSession) => Promise<void>): Promise<void>;
}

/** What the all-in-one entry (typeormTestDb, prismaTestDb, drizzleTestDb) gives. */
export interface AdapterHandle extends OrmSession {
  database: TestDatabase;
  /** The handle disposed: the ORM closed and the database dropped. */
  dispose(): Promise<void>;
}

export interface AdapterFixture {
  orm: string;
  /** The ORM version under test, for the suite's names and its databases'. */
  version: string;
  engine: EngineName;
  /** The all-in-one entry for `worker` (which also names the database). */
  open(worker: string): Promise<AdapterHandle>;
  /** The connection half (typeormDataSource, prismaClient, drizzle() on the worker's connection) on a database that exists. */
  attach(database: TestDatabase): Promise<OrmSession>;
  /** A row the server refuses once a row of `value` is in the same statement (NULL for a NOT NULL text, or the same unique text again). */
  refused(value: string): Row;
  /** Whether the adapter has withRollback (its sessions then have withRollback and transaction). */
  rollsBack: boolean;
}

/** The stored texts that start with `prefix`, in key order. */
async function texts(s: OrmSession, prefix: string): Promise<string[]> {
  return (await s.stored(prefix)).map(([, text]) => text);
}

const label = (engine: EngineName) => (engine === 'mysql' ? 'MariaDB' : 'PostgreSQL');

export function adapterContract(fixture: AdapterFixture): void {
  const { orm, version, engine } = fixture;
  const tag = `${orm}${version}${engine}`.replace(/\W/g, '');
  // The engine coalesces single-row calls into one statement (PostgreSQL); MySQL gets one each.
  const coalesces = engine === 'postgres';

  describe(`adapter contract: ${orm} ${version} on ${label(engine)}`, () => {
    let a: AdapterHandle;
    let b: AdapterHandle;
    const value = (tag: string) => (a.text === 'email' ? `${tag}@x.io` : tag);

    beforeAll(async () => {
      a = await fixture.open(`${tag}a`);
      b = await fixture.open(`${tag}b`);
    });
    afterAll(async () => {
      await a?.dispose();
      await b?.dispose();
    });

    it('clones each worker its own database from one template, built at most once', () => {
      expect(a.database.name).not.toBe(b.database.name);
      expect(b.database.template.name).toBe(a.database.template.name);
      expect(b.database.template.fingerprint).toBe(a.database.template.fingerprint);
      // The second worker finds the template the first one built (or found).
      expect(b.database.template.built).toBe(false);
      expect(a.database.server.engine).toBe(engine);
    });

    if (engine === 'postgres')
      it('the ORM connects over the server socket; the handle still names TCP for the app', async () => {
        const [row] = await b.query('SELECT inet_server_addr()::text AS addr');
        expect(row!.addr).toBeNull(); // NULL: a Unix socket connection
        expect(b.database.connection.host).toBe('127.0.0.1');
      });

    it("keeps each worker's rows in its own database", async () => {
      await a.insert({ [a.text]: value('iso-a') });
      await b.insert({ [b.text]: value('iso-b') });
      expect(await texts(a, 'iso-')).toEqual([value('iso-a')]);
      expect(await texts(b, 'iso-')).toEqual([value('iso-b')]);
    });

    it('reset() empties what fastInsert wrote while the ORM stays connected, and keys start again', async () => {
      await a.insert([{ [a.text]: value('reset-1') }, { [a.text]: value('reset-2') }]);
      await a.database.reset();
      expect(await texts(a, '')).toEqual([]);
      const again = (await a.insert({ [a.text]: value('reset-3') })) as Row;
      expect(Number(again[a.key])).toBe(1);
    });

    it('recreate() after close() gives a fresh clone, which the connection half attaches to', async () => {
      await a.insert({ [a.text]: value('old-1') });
      await a.close();
      await a.database.recreate();
      const session = await fixture.attach(a.database);
      try {
        expect(await texts(session, '')).toEqual([]);
        const out = (await session.insert({ [session.text]: value('new-1') })) as Row;
        expect(out[session.text]).toBe(value('new-1'));
        expect(await texts(session, '')).toEqual([value('new-1')]);
      } finally {
        await session.close();
      }
    });

    // Only for the adapters that have it: Prisma's interactive transactions take no fastInsert (docs/isolation.md).
    if (fixture.rollsBack)
      describe('withRollback', () => {
        const rollback = <T>(fn: (tx: OrmSession) => Promise<T>) => b.withRollback!(fn);

        it('what is written through the transaction is seen there, by no other connection, and is gone after; the value comes back', async () => {
          const out = await rollback(async (tx) => {
            await tx.insert([{ [tx.text]: value('rb-1') }, { [tx.text]: value('rb-2') }], { returning: false });
            // The handle's own pool, on another connection, does not see uncommitted rows.
            expect(await texts(b, 'rb-')).toEqual([]);
            return texts(tx, 'rb-');
          });
          expect(out).toEqual([value('rb-1'), value('rb-2')]);
          expect(await texts(b, 'rb-')).toEqual([]);
        });

        it('an error thrown inside comes out as it was, and what was written is gone', async () => {
          const boom = new Error('the test failed');
          await expect(
            rollback(async (tx) => {
              await tx.insert({ [tx.text]: value('rbe-1') });
              throw boom;
            }),
          ).rejects.toBe(boom);
          expect(await texts(b, 'rbe-')).toEqual([]);
        });

        it("a transaction the code opens inside commits into the test's transaction only", async () => {
          await rollback(async (tx) => {
            await tx.transaction!(async (inner) => void (await inner.insert({ [inner.text]: value('rbn-1') })));
            expect(await texts(tx, 'rbn-')).toEqual([value('rbn-1')]);
          });
          expect(await texts(b, 'rbn-')).toEqual([]);
        });

        it('a statement the server refuses inside a nested transaction undoes that one alone: the test goes on', async () => {
          const out = await rollback(async (tx) => {
            await tx.insert({ [tx.text]: value('rbf-1') });
            const failed = await tx.transaction!(async (inner) => {
              await inner.insert({ [inner.text]: value('rbf-2') });
              await inner.insert(fixture.refused(value('rbf-1')));
            }).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(failed).toMatchObject({ code: 'QUERY_FAILED' });
            await tx.insert({ [tx.text]: value('rbf-3') });
            return texts(tx, 'rbf-');
          });
          expect(out).toEqual([value('rbf-1'), value('rbf-3')]);
          expect(await texts(b, 'rbf-')).toEqual([]);
        });

        it('gives its connection back: more calls than the pool has connections, then the pool still answers', async () => {
          for (let i = 0; i < 12; i++) await rollback((tx) => tx.insert({ [tx.text]: value(`rbp-${i}`) }));
          await expect(rollback(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
          expect(await texts(b, 'rbp-')).toEqual([]);
        });
      });

    describe('fastInsert', () => {
      let s: OrmSession;
      beforeAll(async () => {
        s = b;
      });

      it('one row in: one record out, with the value given and the generated key', async () => {
        const out = (await s.insert({ [s.text]: value('one-1') })) as Row;
        expect(Array.isArray(out)).toBe(false);
        expect(out[s.text]).toBe(value('one-1'));
        expect(Number(out[s.key])).toBeGreaterThan(0);
        expect(await texts(s, 'one-')).toEqual([value('one-1')]);
      });

      it('an array in: an array of records out, in input order, keys ascending', async () => {
        const rows = ['many-a', 'many-c', 'many-b'].map((v) => ({ [s.text]: value(v) }));
        const out = (await s.insert(rows)) as Row[];
        expect(Array.isArray(out)).toBe(true);
        expect(out.map((r) => r[s.text])).toEqual(rows.map((r) => r[s.text]));
        const keys = out.map((r) => Number(r[s.key]));
        expect(keys.every((k) => k > 0)).toBe(true);
        expect([...keys].sort((x, y) => x - y)).toEqual(keys);
        expect(await texts(s, 'many-')).toEqual(rows.map((r) => r[s.text]));
      });

      it('a one-row array still gives an array', async () => {
        const out = (await s.insert([{ [s.text]: value('lone-1') }])) as Row[];
        expect(out).toHaveLength(1);
        expect(out[0]![s.text]).toBe(value('lone-1'));
      });

      it('returning: false resolves to nothing, for one row and for many, and writes them', async () => {
        expect(await s.insert({ [s.text]: value('quiet-1') }, { returning: false })).toBeUndefined();
        expect(await s.insert([{ [s.text]: value('quiet-2') }, { [s.text]: value('quiet-3') }], { returning: false })).toBeUndefined();
        expect(await texts(s, 'quiet-')).toEqual(['quiet-1', 'quiet-2', 'quiet-3'].map(value));
      });

      it(`single-row calls started together ${coalesces ? 'go out as one statement' : 'go out one statement each'}, each settling as if alone`, async () => {
        // A session of its own, watched before its first statement (executors may keep the driver's method).
        const s = await fixture.attach(b.database);
        const counter: InsertCounter | undefined = s.sends && countInserts(s.sends.target, s.sends.method);
        try {
          const rows = Array.from({ length: 256 }, (_, i) => ({ [s.text]: value(`co-${i}`) }));
          const outs = (await Promise.all(rows.map((r) => s.insert(r)))) as Row[];
          if (counter) expect(counter.count).toBe(coalesces ? 1 : rows.length);
          // Each call has its own record, with its own row's key; one statement also keeps call order.
          expect(outs.map((o) => o[s.text])).toEqual(rows.map((r) => r[s.text]));
          const textOf = new Map(await s.stored('co-'));
          expect(outs.map((o) => textOf.get(Number(o[s.key])))).toEqual(rows.map((r) => r[s.text]));
          if (coalesces) expect([...textOf.values()]).toEqual(rows.map((r) => r[s.text]));

          // A row the server refuses fails the batch, which goes again row by row: only that call fails.
          counter?.reset();
          const mixed = [
            { [s.text]: value('cm-1') },
            fixture.refused(value('co-0')),
            { [s.text]: value('cm-3') },
            { [s.text]: value('cm-4') },
          ];
          const settled = await Promise.allSettled(mixed.map((r) => s.insert(r)));
          expect(settled.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
          expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'QUERY_FAILED' });
          if (counter) expect(counter.count).toBe(coalesces ? 1 + mixed.length : mixed.length);
          const keys = settled.flatMap((x) => (x.status === 'fulfilled' ? [Number((x.value as Row)[s.key])] : []));
          const byText = (pairs: Array<[number, string]>) => [...pairs].sort((x, y) => (x[1] < y[1] ? -1 : 1));
          expect(byText(await s.stored('cm-'))).toEqual([
            [keys[0], value('cm-1')],
            [keys[1], value('cm-3')],
            [keys[2], value('cm-4')],
          ]);

          counter?.reset();
          await Promise.all([1, 2, 3].map((i) => s.insert({ [s.text]: value(`cs-${i}`) }, { coalesce: false })));
          if (counter) expect(counter.count).toBe(3);
          expect(await texts(s, 'cs-')).toHaveLength(3);
        } finally {
          counter?.restore();
          await s.close();
        }
      });

      it('a row the server refuses is QUERY_FAILED, and its array leaves none of its rows', async () => {
        const e = await s.insert([{ [s.text]: value('atomic-1') }, fixture.refused(value('atomic-1'))]).catch((x: unknown) => x);
        expect(isFastTestDbError(e)).toBe(true);
        expect(e).toMatchObject({ code: 'QUERY_FAILED' });
        expect(await texts(s, 'atomic-')).toEqual([]);
      });
    });
  });
}
