/**
 * fastInsert writes what db.insert(table).values(rows) writes, and returns what .returning()
 * (PostgreSQL) or .$returningId() (MySQL) returns, for every table of the zoo, on each driver.
 *
 * One suite for every drizzle-orm version: fast-insert.test.ts runs it on the installed
 * drizzle-orm, fast-insert-<version>.test.ts on an aliased copy (test/helpers/installed-version.ts).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDrizzle } from '../../../adapters/drizzle/driver.js';
import { drizzleTestDb, fastInsert, type DrizzleTestDb } from '../../../adapters/drizzle/index.js';
import { mysqlCases, normalize, pgCases, resetCounters, sortBy, type ZooCase } from './cases.js';
import * as myZoo from './zoo-mysql.js';
import * as pgZoo from './zoo-pg.js';

const PREFIX = 'ftdbdzoo';

interface Setup {
  driver: 'pg' | 'postgres-js' | 'mysql2';
  engine: 'postgres' | 'mysql';
  cases: ZooCase[];
}

const setups: Setup[] = [
  { driver: 'pg', engine: 'postgres', cases: pgCases },
  { driver: 'postgres-js', engine: 'postgres', cases: pgCases },
  { driver: 'mysql2', engine: 'mysql', cases: mysqlCases },
];

const only = process.env.FTDB_TEST_ENGINE;

/**
 * `version` names the drizzle-orm under test (test and database names); `installed` is the main
 * module of that copy: the instances the adapter opens must be of its classes.
 */
export function drizzleZooSuite(version: string, installed: Record<string, unknown>): void {
  const tag = version.replace(/\W/g, '');
  for (const setup of setups.filter((s) => !only || s.engine === only)) {
    describe(`fastInsert on ${setup.engine} via ${setup.driver}, drizzle-orm ${version}`, () => {
      let t: DrizzleTestDb<any>;
      const db = () => t.db as any;

      beforeAll(async () => {
        t = await drizzleTestDb({
          schema: setup.engine === 'postgres' ? pgZoo : myZoo,
          engine: setup.engine,
          driver: setup.driver,
          casing: 'snake_case',
          prefix: PREFIX,
          suffix: `zoo${setup.driver.replace('-', '')}${tag}`,
          cacheKey: `drizzle-orm-${version}`,
        });
      });

      it(`the adapter runs on drizzle-orm ${version}`, async () => {
        expect((await import('drizzle-orm')).sql).toBe(installed.sql);
        const core =
          setup.engine === 'postgres'
            ? (await import('drizzle-orm/pg-core')).PgDatabase
            : (await import('drizzle-orm/mysql-core')).MySqlDatabase;
        expect(db()).toBeInstanceOf(core);
      });
      afterAll(async () => {
        await t?.[Symbol.asyncDispose]();
      });

      async function empty(c: ZooCase): Promise<void> {
        await t.database.reset();
        resetCounters();
        void c;
      }

      async function drizzleInsert(c: ZooCase, rows: unknown): Promise<unknown> {
        const q = db().insert(c.table).values(rows);
        if (setup.engine === 'postgres') return q.returning();
        const ids = (await q.$returningId()) as unknown[];
        // $returningId gives [] for a table with no generated key; fastInsert keeps one (empty)
        // entry per row so that results always line up with the input.
        const count = Array.isArray(rows) ? rows.length : 1;
        return ids.length === 0 ? Array.from({ length: count }, () => ({})) : ids;
      }

      const selectAll = async (c: ZooCase) => sortBy(await db().select().from(c.table), c.orderBy);

      /**
       * MySQL: fastInsert's record carries the values sent beside the generated keys; here its
       * keys are compared with $returningId()'s (the stored rows are compared on their own).
       */
      function keysOf(fast: Array<Record<string, unknown>>, drizzle: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
        if (setup.engine === 'postgres') return fast;
        return fast.map((r, i) => Object.fromEntries(Object.keys(drizzle[i] ?? {}).map((k) => [k, r[k]])));
      }

      for (const c of setup.cases) {
        it(`array: ${c.name}`, async () => {
          await empty(c);
          const viaDrizzle = (await drizzleInsert(c, c.rows)) as Array<Record<string, unknown>>;
          const storedByDrizzle = await selectAll(c);
          await empty(c);
          const viaFast = (await fastInsert(db(), c.table as any, c.rows as any)) as Array<Record<string, unknown>>;
          const storedByFast = await selectAll(c);

          expect(viaFast).toHaveLength(c.rows.length);
          expect(normalize(keysOf(viaFast, viaDrizzle), c.rows, c.volatile)).toEqual(normalize(viaDrizzle, c.rows, c.volatile));
          expect(storedByFast).toHaveLength(c.rows.length);
          expect(normalize(storedByFast, c.rows, c.volatile)).toEqual(normalize(storedByDrizzle, c.rows, c.volatile));
        });

        it(`one row at a time: ${c.name}`, async () => {
          await empty(c);
          const viaDrizzle = [];
          for (const row of c.rows) viaDrizzle.push(...((await drizzleInsert(c, row)) as unknown[]));
          const storedByDrizzle = await selectAll(c);
          await empty(c);
          const viaFast = [];
          for (const row of c.rows) {
            const one = await fastInsert(db(), c.table as any, row as any);
            expect(Array.isArray(one)).toBe(false);
            viaFast.push(one);
          }
          expect(normalize(keysOf(viaFast as any, viaDrizzle as any), c.rows, c.volatile)).toEqual(
            normalize(viaDrizzle as any, c.rows, c.volatile),
          );
          expect(normalize(await selectAll(c), c.rows, c.volatile)).toEqual(normalize(storedByDrizzle, c.rows, c.volatile));
        });
      }

      it('splits arrays beyond one statement, keeps input order, and matches chunked db.insert', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        const rows = Array.from({ length: 2500 }, (_, i) => ({ fullName: `p${i}`, age: i % 7 === 0 ? undefined : i, weight: i / 4 }));
        await t.database.reset();
        resetCounters();
        // 2500 rows x ~25 columns exceeds the 65535 bind parameters one statement may carry, so
        // Drizzle's own insert needs chunking by hand.
        for (let i = 0; i < rows.length; i += 500)
          await db()
            .insert(zoo.people)
            .values(rows.slice(i, i + 500));
        const byDrizzle = normalize(sortBy(await db().select().from(zoo.people), ['id']), rows, ['createdAt', 'token', 'stampedAt']);
        await t.database.reset();
        resetCounters();
        const out = (await fastInsert(db(), zoo.people as any, rows)) as Array<{ id: number; fullName?: string }>;
        expect(out.map((r) => r.id)).toEqual(rows.map((_, i) => i + 1));
        expect(out.map((r) => r.fullName)).toEqual(rows.map((r) => r.fullName));
        const byFast = normalize(sortBy(await db().select().from(zoo.people), ['id']), rows, ['createdAt', 'token', 'stampedAt']);
        expect(byFast).toEqual(byDrizzle);
      });

      it('writes all rows of an array or none, even across several statements', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await t.database.reset();
        // 1500 rows take two statements; the last row breaks NOT NULL in the second one.
        const rows: Array<Record<string, unknown>> = Array.from({ length: 1500 }, (_, i) => ({ fullName: `p${i}` }));
        rows[1499] = { fullName: null };
        await expect(fastInsert(db(), zoo.people as any, rows as any)).rejects.toThrow();
        expect(await db().select().from(zoo.people)).toHaveLength(0);
      });

      it('prepares a statement once per connection and shape, then reuses it', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await t.database.reset();
        // One connection, so that the server-side counters below see every statement.
        const one = await openDrizzle(setup.driver, t.database.connection, { casing: 'snake_case', max: 1 });
        try {
          const prepares = async (): Promise<number> => {
            if (setup.engine === 'mysql') {
              const [rows] = await one.client.query("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'");
              return Number(rows[0].Value);
            }
            const q = `select count(*)::int as n from pg_prepared_statements where statement like 'INSERT INTO "pairs"%'`;
            return setup.driver === 'pg' ? (await one.client.query(q)).rows[0].n : (await one.client.unsafe(q))[0].n;
          };
          await fastInsert(one.db, zoo.pairs as any, { left: 0, right: 0 });
          const before = await prepares();
          for (let i = 1; i <= 5; i++) await fastInsert(one.db, zoo.pairs as any, { left: i, right: i });
          await fastInsert(one.db, zoo.pairs as any, [
            { left: 9, right: 1 },
            { left: 9, right: 2 },
          ]);
          const after = await prepares();
          // Five more single-row inserts reuse the first statement; the two-row insert is a new shape.
          expect(after - before).toBe(1);
          if (setup.engine === 'postgres') expect(before).toBe(1);
        } finally {
          await one.close();
        }
      });

      it('coalesces nothing inside a transaction: the rollback takes every row', async () => {
        // Single-row calls on the pool (statements, keys, a refused row, coalesce: false): the adapter contract (test/adapters/contract.ts).
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await t.database.reset();
        const people = async () => sortBy(await db().select().from(zoo.people), ['id']) as Array<{ id: number; fullName: string }>;
        await db()
          .transaction(async (tx: any) => {
            await Promise.all([1, 2, 3].map((i) => fastInsert(tx, zoo.people as any, { fullName: `tx-${i}` })));
            throw new Error('roll back');
          })
          .catch((e: Error) => expect(e.message).toBe('roll back'));
        expect((await people()).filter((r) => r.fullName.startsWith('tx-'))).toEqual([]);
      });

      it('returns the row count only when asked for no returning', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await t.database.reset();
        expect(await fastInsert(db(), zoo.bare as any, [{}, {}], { returning: false })).toBeUndefined();
        expect(await fastInsert(db(), zoo.people as any, { fullName: 'x' }, { returning: false })).toBeUndefined();
      });

      it('runs inside a transaction on the transaction connection', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await t.database.reset();
        await db()
          .transaction(async (tx: any) => {
            await fastInsert(tx, zoo.people as any, [{ fullName: 'rolled back' }, { fullName: 'also' }]);
            const inside = await tx.select().from(zoo.people);
            expect(inside).toHaveLength(2);
            throw new Error('roll back');
          })
          .catch((e: Error) => expect(e.message).toBe('roll back'));
        expect(await db().select().from(zoo.people)).toHaveLength(0);
      });

      it('writes through an instance the app built itself with drizzle(url)', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await t.database.reset();
        resetCounters();
        const module =
          setup.driver === 'pg'
            ? await import('drizzle-orm/node-postgres')
            : setup.driver === 'postgres-js'
              ? await import('drizzle-orm/postgres-js')
              : await import('drizzle-orm/mysql2');
        const url = t.database.url;
        // The app's own instance: drizzle() makes the driver client from the URL, as apps do.
        const own = (module.drizzle as unknown as (config: object) => any)(
          setup.driver === 'mysql2'
            ? { connection: { uri: url }, mode: 'default', casing: 'snake_case' }
            : { connection: url, casing: 'snake_case' },
        );
        try {
          const rows = [{ fullName: 'own-1', age: 3 }, { fullName: 'own-2' }];
          const out = (await fastInsert(own, zoo.people as any, rows as any)) as Array<Record<string, unknown>>;
          expect(out).toHaveLength(2);
          const back = sortBy(await db().select().from(zoo.people), ['id']);
          expect(back.map((r) => [r.fullName, r.age])).toEqual([
            ['own-1', 3],
            ['own-2', 18],
          ]);
          if (setup.engine === 'postgres') expect(out.map((r) => r.id)).toEqual(back.map((r) => r.id));
        } finally {
          const client = own.$client;
          await (setup.driver === 'postgres-js' ? client.end({ timeout: 5 }) : client.end());
        }
      });

      it('refuses SQL expressions with parameters, and non-tables, with UNSUPPORTED', async () => {
        const zoo = setup.engine === 'postgres' ? pgZoo : myZoo;
        await expect(fastInsert(db(), zoo.people as any, { fullName: sql`lower(${'X'})` } as any)).rejects.toMatchObject({
          code: 'UNSUPPORTED',
        });
        await expect(fastInsert(db(), zoo.people as any, { fullName: sql.placeholder('name') } as any)).rejects.toMatchObject({
          code: 'UNSUPPORTED',
        });
        await expect(fastInsert(db(), { not: 'a table' } as any, {} as any)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
        await expect(fastInsert({} as any, zoo.people as any, {} as any)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
        await expect(fastInsert(db(), zoo.people as any, [null] as any)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
      });
    });
  }
}
