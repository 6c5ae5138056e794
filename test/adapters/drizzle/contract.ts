/**
 * The Drizzle fixture of the adapter contract: the zoo's `people` table (a serial key and a NOT NULL
 * full name) on node-postgres, postgres.js or mysql2, from drizzleTestDb, or from the app's own drizzle() on a
 * database that exists. Imported after test/helpers/installed-version.ts has put another
 * drizzle-orm in place, it runs on that one.
 */
import { asc } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { fastInsert, drizzleTestDb, withRollback, type DrizzleDriver } from '../../../adapters/drizzle/index.js';
import type { EngineName } from '../../../src/types.js';
import * as myZoo from './zoo-mysql.js';
import * as pgZoo from './zoo-pg.js';
import type { AdapterFixture, OrmSession, Row } from '../contract.js';

/** The driver modules an app builds its own instance with, per driver. */
const MODULES = {
  pg: () => import('drizzle-orm/node-postgres'),
  'postgres-js': () => import('drizzle-orm/postgres-js'),
  mysql2: () => import('drizzle-orm/mysql2'),
} as const;

/** The method each driver client sends fastInsert's statements through. */
const SENDS = { pg: 'query', 'postgres-js': 'unsafe', mysql2: 'execute' } as const;

export function drizzleFixture(
  engine: EngineName,
  version: string,
  driver: DrizzleDriver = engine === 'postgres' ? 'pg' : 'mysql2',
): AdapterFixture {
  const zoo = engine === 'postgres' ? pgZoo : myZoo;
  const people = zoo.people as any;
  const session = (db: any, close: () => Promise<void>): OrmSession => ({
    withRollback: (fn) => withRollback(db, (tx) => fn(session(tx, async () => undefined))),
    transaction: (fn) => db.transaction((tx: any) => fn(session(tx, async () => undefined))),
    text: 'fullName',
    key: 'id',
    insert: (rows, o) => fastInsert(db, people, rows as never, o as never),
    stored: async (prefix) =>
      (await db.select().from(people).orderBy(asc(people.id)))
        .filter((r: Row) => (r.fullName as string).startsWith(prefix))
        .map((r: Row) => [Number(r.id), r.fullName]),
    query: async (text) => {
      const result = await db.execute(sql.raw(text));
      // postgres.js returns the rows, pg a result holding them, mysql2 [rows, fields].
      return Array.isArray(result) ? (Array.isArray(result[0]) ? result[0] : result) : result.rows;
    },
    sends: { target: db.$client, method: SENDS[driver] },
    close,
  });
  return {
    orm: driver === 'postgres-js' ? 'Drizzle (postgres.js)' : 'Drizzle',
    version,
    engine,
    async open(worker) {
      const t = await drizzleTestDb({
        schema: zoo,
        engine,
        driver,
        casing: 'snake_case',
        worker,
        suffix: worker,
        cacheKey: `drizzle-${version}`,
      });
      return { ...session(t.db, t.close), database: t.database, dispose: async () => await t[Symbol.asyncDispose]() };
    },
    async attach(database) {
      // As an app builds its instance: drizzle() of the driver module on the database's URL.
      const mod = await MODULES[driver]();
      const config = { schema: zoo, casing: 'snake_case', ...(engine === 'mysql' ? { mode: 'default' } : {}) };
      const db = (mod.drizzle as (url: string, config: object) => any)(database.url, config);
      return session(db, () => db.$client.end());
    },
    refused: () => ({ fullName: null }),
    rollsBack: true,
  };
}
