/**
 * The TypeORM fixture of the adapter contract: the zoo's Author entity (a SERIAL key and a NOT NULL
 * name) on a DataSource from typeormTestDb, or from typeormDataSource on a database that exists.
 * Imported after test/helpers/installed-version.ts has put another TypeORM in place, it runs on that one.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { fastInsert, typeormDataSource, typeormTestDb, withRollback } from '../../../adapters/typeorm/index.js';
import { poolOf } from '../../../adapters/typeorm/driver.js';
import { closeDataSource } from '../../../adapters/typeorm/orm.js';
import type { EngineName } from '../../../src/types.js';
import { zooOptions } from './zoo.js';
import type { AdapterFixture, OrmSession, Row } from '../contract.js';

export function typeormFixture(engine: EngineName, version: string): AdapterFixture {
  const { zoo, options } = zooOptions(engine);
  /** A session on a DataSource (its pool), or on the EntityManager of a transaction (`ds` then absent). */
  const session = (on: DataSource | EntityManager, close: () => Promise<void>, ds?: DataSource): OrmSession => {
    const repo = on.getRepository(zoo.Author);
    // TypeORM loads mysqljs (`mysql`, which has only query()) when the project has it, and mysql2 otherwise.
    const pool = ds && (poolOf(ds) as { execute?: unknown });
    const inTx = (m: EntityManager) => session(m, async () => undefined);
    return {
      text: 'name',
      key: 'id',
      insert: (rows, o) => fastInsert(repo, rows as never, o as never),
      stored: async (prefix) =>
        (await on.query(`SELECT id, name FROM zoo_author WHERE name LIKE '${prefix}%' ORDER BY id`)).map((r: Row) => [
          Number(r.id),
          r.name,
        ]),
      query: (sql) => on.query(sql),
      ...(pool ? { sends: { target: pool, method: typeof pool.execute === 'function' ? 'execute' : 'query' } } : {}),
      close,
      ...(ds ? { withRollback: (fn) => withRollback(ds, (m) => fn(inTx(m))) } : {}),
      transaction: (fn) => on.transaction((m: EntityManager) => fn(inTx(m))),
    };
  };
  return {
    orm: 'TypeORM',
    version,
    engine,
    async open(worker) {
      // The fingerprint reads the version of the `typeorm` the project resolves; the cache key
      // keeps templates that another major built apart.
      const t = await typeormTestDb(options, { worker, suffix: worker, cacheKey: `typeorm-${version}` });
      return { ...session(t.dataSource, t.close, t.dataSource), database: t.database, dispose: async () => await t[Symbol.asyncDispose]() };
    },
    async attach(database) {
      const ds = await typeormDataSource(options, database.connection);
      return session(ds, () => closeDataSource(ds), ds);
    },
    refused: () => ({ name: null }),
    rollsBack: true,
  };
}
