/**
 * Equivalence zoo: for every entity shape, repository.insert() into one clone and fastInsert into
 * another clone of the same template must leave identical tables (ids included, since both clones
 * start their sequences at the same point), and hand back the same keys.
 *
 * One suite for every TypeORM major: zoo.test.ts runs it on the installed `typeorm`, the
 * zoo-<version>.test.ts files on an aliased copy (see test/helpers/installed-version.ts).
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import {
  Column,
  Entity,
  EventSubscriber,
  PrimaryGeneratedColumn,
  Tree,
  TreeChildren,
  TreeParent,
  type EntitySubscriberInterface,
} from 'typeorm';
import { fastInsert, typeormOptions, typeormTestDb } from '../../../adapters/typeorm/index.js';
import { poolOf } from '../../../adapters/typeorm/driver.js';
import { closeDataSource, loadDataSourceClass, openDataSource } from '../../../adapters/typeorm/orm.js';
import { isFastTestDbError } from '../../../src/errors.js';
import type { TestDatabase } from '../../../src/types.js';
import { dumpTable } from './compare.js';
import { AddWidgetColor1700000000001, CreateWidgets1700000000000 } from './fixtures/migrations.js';
import { SnakeNamingStrategy, type ZooEngine, zooOptions } from './zoo.js';
import { countInserts } from '../../helpers/insert-counter.js';

const engines: ZooEngine[] = ['postgres', 'mysql'];

/**
 * `version` names the TypeORM under test: it goes into test names, database names and the cache
 * key. `installed` is the module that copy exports: the adapter must be running on it.
 */
export function typeormZooSuite(version: string, installed: Record<string, unknown>): void {
  const tag = version.replace(/\W/g, '');
  it(`the adapter runs on TypeORM ${version}`, async () => {
    const cls = await loadDataSourceClass('zoo');
    expect(cls).toBe(installed.DataSource ?? installed.Connection);
  });
  for (const engine of engines) {
    describe(`fastInsert equals repository.insert on ${engine}, TypeORM ${version}`, () => {
      const { zoo, options } = zooOptions(engine);
      let a: { dataSource: DataSource; database: TestDatabase };
      let b: { dataSource: DataSource; database: TestDatabase };

      beforeAll(async () => {
        // The fingerprint reads the version of the `typeorm` the project resolves; the cache key
        // keeps templates that another major built apart.
        a = await typeormTestDb(options, { worker: 'zoo', suffix: `${engine}${tag}a`, cacheKey: `typeorm-${version}` });
        b = await typeormTestDb(options, { worker: 'zoo', suffix: `${engine}${tag}b`, cacheKey: `typeorm-${version}` });
      });
      afterAll(async () => {
        for (const x of [a, b]) {
          if (x) await closeDataSource(x.dataSource);
          await x?.database.destroy({ force: true });
        }
      });

      const done = new Set<string>();
      for (const shape of zoo.shapes) {
        it(`${shape.name}: same rows and keys`, async () => {
          for (const dep of shape.after ?? []) expect(done.has(dep), `${dep} runs before ${shape.name}`).toBe(true);
          const ra = a.dataSource.getRepository(shape.entity);
          const rb = b.dataSource.getRepository(shape.entity);
          const rowsA = shape.rows();
          const rowsB = shape.rows();
          // One row alone, then the rest as an array: both code paths.
          const singleA = await ra.insert(rowsA[0]!);
          const singleB = await fastInsert(rb, rowsB[0]!);
          const manyA = await ra.insert(rowsA.slice(1));
          const manyB = await fastInsert(rb, rowsB.slice(1));

          const table = a.dataSource.getMetadata(shape.entity).tableName;
          const dumpA = await dumpTable(a.dataSource, table, shape.loose);
          const dumpB = await dumpTable(b.dataSource, table, shape.loose);
          expect(dumpB).toEqual(dumpA);
          expect(dumpA.length).toBeGreaterThanOrEqual(rowsA.length);

          const keyed = !shape.loose.length;
          const ids = (r: { identifiers: object[] }[]) => r.flatMap((x) => x.identifiers);
          const md = a.dataSource.getMetadata(shape.entity);
          // fastInsert resolves to the objects passed in: one for one, the array's objects for an array.
          expect(singleB).toBe(rowsB[0]);
          expect(manyB).toHaveLength(rowsB.length - 1);
          for (const [i, r] of manyB.entries()) expect(r).toBe(rowsB[i + 1]);
          const idsB = [singleB, ...manyB].map((r) => md.getEntityIdMap(r)!);
          if (keyed) expect(idsB).toEqual(ids([singleA, manyA]));
          else for (const id of idsB) expect(Object.values(id).every((v) => v != null)).toBe(true);
          // Keys land on the objects passed in, as insert() puts them there.
          for (let i = 0; i < rowsA.length; i++) {
            const idA = md.getEntityIdMap(rowsA[i]!);
            const idB = md.getEntityIdMap(rowsB[i]!);
            if (keyed) expect(idB).toEqual(idA);
            else expect(idB).toBeTruthy();
          }
          done.add(shape.name);
        });
      }

      it('batches arrays beyond one statement and keeps keys in input order', async () => {
        const rows: Array<{ name: string; id?: number }> = Array.from({ length: 2500 }, (_, i) => ({ name: `bulk${i}` }));
        const before = Number((await b.dataSource.query('SELECT MAX(id) AS m FROM zoo_author'))[0].m ?? 0);
        const res = await fastInsert({ entity: zoo.Author, dataSource: b.dataSource }, rows);
        expect(res).toHaveLength(2500);
        expect(res.map((x) => Number(x.id))).toEqual(rows.map((_, i) => before + 1 + i));
        const back = await b.dataSource.query(`SELECT id, name FROM zoo_author WHERE name LIKE 'bulk%' ORDER BY id`);
        expect(back.map((r: { name: string }) => r.name)).toEqual(rows.map((r) => r.name));
        expect(back.map((r: { id: number }) => Number(r.id))).toEqual(res.map((x) => Number(x.id)));
      });

      it('returning: false writes the same rows without asking them back', async () => {
        const res = await fastInsert(b.dataSource.getRepository(zoo.Dates), [{ label: 'nr1' }, { label: 'nr2', version: 4 }], {
          returning: false,
        });
        expect(res).toBeUndefined();
        const back = await b.dataSource.query(`SELECT label, version FROM zoo_dates WHERE label LIKE 'nr%' ORDER BY label`);
        expect(back.map((r: { label: string; version: number }) => [r.label, Number(r.version)])).toEqual([
          ['nr1', 1],
          ['nr2', 4],
        ]);
      });

      it('writes nothing when a later statement of an array fails', async () => {
        const count = async () => Number((await b.dataSource.query('SELECT COUNT(*) AS n FROM zoo_author'))[0].n);
        const n0 = await count();
        // 2,000 good rows (two statements), then one without the NOT NULL name: its statement fails.
        const rows: Array<{ name?: string; id?: number }> = Array.from({ length: 2000 }, (_, i) => ({ name: `atomic${i}` }));
        rows.push({});
        await expect(fastInsert(b.dataSource.getRepository(zoo.Author), rows)).rejects.toMatchObject({ code: 'QUERY_FAILED' });
        expect(await count()).toBe(n0);
        expect(rows[0]!.id).toBeUndefined();
      });

      it('runs inside the caller transaction and rolls back with it', async () => {
        const label = `tx-${engine}`;
        await expect(
          b.dataSource.transaction(async (manager) => {
            await fastInsert(manager.getRepository(zoo.Author), { name: label });
            const seen = await manager.query(`SELECT COUNT(*) AS n FROM zoo_author WHERE name = '${label}'`);
            expect(Number(seen[0].n)).toBe(1);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        const after = await b.dataSource.query(`SELECT COUNT(*) AS n FROM zoo_author WHERE name = '${label}'`);
        expect(Number(after[0].n)).toBe(0);
      });

      it('refuses what it cannot write exactly, before writing anything', async () => {
        const repo = b.dataSource.getRepository(zoo.Post);
        const count = async () => Number((await b.dataSource.query('SELECT COUNT(*) AS n FROM zoo_post'))[0].n);
        const n0 = await count();
        const unsupported = async (p: Promise<unknown>, text: RegExp) => {
          const err = await p.then(
            () => null,
            (e: unknown) => e,
          );
          expect(isFastTestDbError(err, 'UNSUPPORTED'), String(err)).toBe(true);
          expect((err as Error).message).toMatch(text);
        };
        await unsupported(
          fastInsert(repo, [{ title: 'ok' }, { title: 'unsaved author', author: { name: 'no id' } as never }]),
          /author.*without id/,
        );
        await unsupported(fastInsert(repo, { title: () => "'sql'" } as never), /SQL expression/);
        expect(await count()).toBe(n0);
      });

      /** A DataSource the app builds on its own, from the URL of b's database. */
      const appDataSource = async (): Promise<DataSource> => {
        const DataSource = await loadDataSourceClass('zoo');
        const own = new DataSource({
          type: options.type,
          url: b.database.url,
          entities: zoo.entities,
          namingStrategy: new SnakeNamingStrategy(),
        } as never);
        await openDataSource(own);
        return own;
      };

      it('writes through a repository of a DataSource the app built on its own URL', async () => {
        const own = await appDataSource();
        try {
          const rows: Array<{ name: string; id?: number }> = [{ name: `own-${engine}-1` }, { name: `own-${engine}-2` }];
          const res = await fastInsert(own.getRepository(zoo.Author), rows);
          const back = await b.dataSource.query(`SELECT id, name FROM zoo_author WHERE name LIKE 'own-%' ORDER BY id`);
          expect(back.map((r: { name: string }) => r.name)).toEqual(rows.map((r) => r.name));
          expect(res.map((x) => Number(x.id))).toEqual(back.map((r: { id: number }) => Number(r.id)));
        } finally {
          await closeDataSource(own);
        }
      });

      it('coalesced calls set their keys on the objects passed in, and an entity with nothing to ask back coalesces too', async () => {
        // How many statements, which keys, a refused row and coalesce: false: the adapter contract (test/adapters/contract.ts).
        const own = await appDataSource();
        // The INSERTs that reach the driver's pool: pg's query, mysql2's execute, mysqljs's query.
        // TypeORM loads mysqljs (`mysql`) when the project has it, as this one does, and mysql2 otherwise.
        const pool = poolOf(own) as { execute?: unknown };
        const inserts = countInserts(pool, typeof pool.execute === 'function' ? 'execute' : 'query');
        const repo = own.getRepository(zoo.Author);
        try {
          const rows: Array<{ name: string; id?: number }> = Array.from({ length: 16 }, (_, i) => ({ name: `co-${i}` }));
          const results = await Promise.all(rows.map((r) => fastInsert(repo, r)));
          // Each call's key is on its own object.
          expect(results).toEqual(rows);
          expect(rows.every((r) => Number(r.id) > 0)).toBe(true);

          // An entity with nothing to ask back (keys given, no defaults): one statement without RETURNING.
          inserts.reset();
          const profiles = [1, 2, 3, 4].map((i) => ({ code: `cp-${engine}-${i}`, bio: `b${i}` }));
          const written = await Promise.all(profiles.map((p) => fastInsert(own.getRepository(zoo.Profile), p)));
          expect(written.map((r) => r.code)).toEqual(profiles.map((p) => p.code));
          expect(inserts.count).toBe(engine === 'postgres' ? 1 : profiles.length);
          const stored = await own.query(`SELECT code FROM zoo_profile WHERE code LIKE 'cp-%' ORDER BY code`);
          expect(stored.map((r: { code: string }) => r.code)).toEqual(profiles.map((p) => p.code));
        } finally {
          inserts.restore();
          await closeDataSource(own);
        }
      });

      it("typeormOptions points an app's options (as TypeOrmModule.forRoot takes them) at the worker's database", async () => {
        const count = async () => Number((await b.dataSource.query('SELECT COUNT(*) AS n FROM zoo_author'))[0].n);
        const before = await count();
        expect(before).toBeGreaterThan(0);
        // The app's production options: another server, and a schema it would drop and synchronize.
        const app = {
          ...options,
          url: `${engine === 'postgres' ? 'postgres' : 'mysql'}://app:secret@db.internal:5433/app`,
          dropSchema: true,
          synchronize: true,
          migrationsRun: true,
        };
        const DataSource = await loadDataSourceClass('zoo');
        const own = new DataSource(typeormOptions(app as never, b.database.connection));
        await openDataSource(own);
        try {
          expect(await count()).toBe(before);
          await fastInsert(own.getRepository(zoo.Author), { name: `nest-${engine}` });
          expect(await count()).toBe(before + 1);
        } finally {
          await closeDataSource(own);
        }
      });

      it('builds a template from migrations, run as the app runs them', async () => {
        const m = await typeormTestDb(
          {
            type: options.type,
            migrations: [CreateWidgets1700000000000, AddWidgetColor1700000000001],
            migrationsTableName: 'zoo_migrations',
          } as never,
          {
            worker: 'zoo',
            suffix: `${engine}${tag}m`,
            cacheKey: `typeorm-${version}`,
          },
        );
        try {
          const ran = await m.dataSource.query('SELECT name FROM zoo_migrations ORDER BY id');
          expect(ran.map((r: { name: string }) => r.name)).toEqual(['CreateWidgets1700000000000', 'AddWidgetColor1700000000001']);
          await m.dataSource.query(`INSERT INTO widget (name) VALUES ('w')`);
          expect(await m.dataSource.query('SELECT name, color FROM widget')).toEqual([{ name: 'w', color: 'grey' }]);
        } finally {
          await closeDataSource(m.dataSource);
          await m.database.destroy({ force: true });
        }
      });

      it('refuses tree entities and unhandled subscribers', async () => {
        @Entity(`zoo_tree_${engine}`)
        @Tree('materialized-path')
        class Node {
          @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
          @Column({ type: 'varchar', length: 10 }) label!: string;
          @TreeParent() parent!: Node | null;
          @TreeChildren() children!: Node[];
        }
        @EventSubscriber()
        class Audit implements EntitySubscriberInterface {
          afterInsert() {}
        }
        const DataSource = await loadDataSourceClass('zoo');
        const ds = new DataSource({
          ...b.dataSource.options,
          entities: [Node, zoo.Author],
          subscribers: [Audit],
          synchronize: false,
        } as never);
        await openDataSource(ds);
        try {
          await expect(fastInsert(ds.getRepository(Node), { label: 'x' })).rejects.toMatchObject({
            code: 'UNSUPPORTED',
            message: expect.stringMatching(/tree entity/),
          });
          await expect(fastInsert(ds.getRepository(zoo.Author), { name: 'audited' })).rejects.toMatchObject({
            code: 'UNSUPPORTED',
            message: expect.stringMatching(/Audit/),
          });
          const res = await fastInsert(ds.getRepository(zoo.Author), { name: 'audited' }, { subscribers: 'skip' });
          expect(res).toHaveProperty('id');
        } finally {
          await closeDataSource(ds);
        }
      });
    });
  }
}
