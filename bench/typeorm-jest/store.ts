/**
 * What each of the TypeORM workload's test files does around its inserts, per setup. The harness picks the
 * setup through the BENCH_TYPEORM_JEST env var (JSON, see TypeormJestEnv), so one set of test files serves
 * every step and every alternative.
 */
import 'reflect-metadata';
import type { DataSource, Repository } from 'typeorm';
import { Point } from './point.entity.js';

export interface TypeormJestEnv {
  /**
   * typeorm: a DataSource on `pg` per file. ftdb: fast-test-db's typeormTestDb (migrated once, a
   * clone per worker). pglite / pg-mem: in-process stand-ins.
   */
  store: 'typeorm' | 'ftdb' | 'pglite' | 'pg-mem';
  insert: 'save' | 'insert' | 'fastInsert' | 'sql';
  /** per-file: synchronize with dropSchema in every file (the write-up). truncate: schema once, TRUNCATE per file. */
  schema: 'per-file' | 'truncate';
  /** ALTER TABLE ... SET UNLOGGED after the schema is built (awaited, unlike the write-up's helper). */
  unlogged: boolean;
  pg?: { host: string; port: number; user: string; password: string; database: string };
  /** Rows per 10_000 of the write-up's workload. */
  rows: number;
}

export interface PointStore {
  add(amount: number): Promise<void>;
  /** The write-up's fourth file: every insert in flight at once. */
  addAll(amounts: number[]): Promise<void>;
  count(): Promise<number>;
  close(): Promise<void>;
}

const TYPEORM_DIST: string = '../../dist/typeorm.cjs';

export function benchEnv(): TypeormJestEnv {
  const raw = process.env.BENCH_TYPEORM_JEST;
  if (!raw) throw new Error('BENCH_TYPEORM_JEST is not set: run these files through bench/run.ts');
  return JSON.parse(raw) as TypeormJestEnv;
}

export async function openPoints(env: TypeormJestEnv = benchEnv()): Promise<PointStore> {
  switch (env.store) {
    case 'typeorm':
      return typeormStore(env);
    case 'ftdb':
      return ftdbStore();
    case 'pglite':
      return pgliteStore();
    case 'pg-mem':
      return pgMemStore();
  }
}

function viaRepository(ds: DataSource, repo: Repository<Point>, insert: TypeormJestEnv['insert'], done: () => Promise<void>): PointStore {
  const one = insert === 'save' ? (p: Point) => repo.save(p) : (p: Point) => repo.insert(p);
  return {
    add: async (amount) => void (await one(Point.of(amount))),
    addAll: async (amounts) => void (await Promise.all(amounts.map((a) => one(Point.of(a))))),
    count: () => repo.count(),
    close: async () => {
      await ds.destroy();
      await done();
    },
  };
}

async function typeormStore(env: TypeormJestEnv): Promise<PointStore> {
  const { DataSource } = await import('typeorm');
  const perFile = env.schema === 'per-file';
  const ds = new DataSource({
    type: 'postgres',
    ...env.pg!,
    username: env.pg!.user,
    entities: [Point],
    // The write-up's setup: every file builds the schema from scratch.
    synchronize: perFile,
    dropSchema: perFile,
    logging: false,
  });
  await ds.initialize();
  if (env.unlogged) await ds.query('ALTER TABLE point SET UNLOGGED');
  if (!perFile) await ds.query('TRUNCATE point RESTART IDENTITY');
  return viaRepository(ds, ds.getRepository(Point), env.insert, async () => undefined);
}

async function ftdbStore(): Promise<PointStore> {
  // The built package's CommonJS entry, as Jest loads an installed fast-test-db.
  const { typeormTestDb, fastInsert }: typeof import('../../adapters/typeorm/index.js') = await import(TYPEORM_DIST);
  const t = await typeormTestDb({ type: 'postgres', entities: [Point], synchronize: true }, { schema: 'synchronize' });
  const repo = t.dataSource.getRepository(Point);
  return {
    add: async (amount) => void (await fastInsert(repo, Point.of(amount))),
    addAll: async (amounts) => void (await Promise.all(amounts.map((a) => fastInsert(repo, Point.of(a))))),
    count: () => repo.count(),
    close: async () => {
      await t.close();
      await t.database.destroy();
    },
  };
}

const POINT_DDL = `CREATE TABLE point (id serial PRIMARY KEY, amount integer NOT NULL, description varchar(64) NOT NULL DEFAULT 'bench')`;
const POINT_INSERT = 'INSERT INTO point (amount) VALUES ($1) RETURNING id';

/** PGlite has no TypeORM driver here: the same statement insert() sends, through PGlite's own API. */
async function pgliteStore(): Promise<PointStore> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create();
  await db.exec(POINT_DDL);
  const one = (a: number) => db.query(POINT_INSERT, [a]);
  return {
    add: async (a) => void (await one(a)),
    addAll: async (as) => void (await Promise.all(as.map(one))),
    count: async () => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM point')).rows[0]!.n),
    close: () => db.close(),
  };
}

/** pg-mem through its TypeORM adapter, as its README suggests; whatever breaks is the finding. */
async function pgMemStore(): Promise<PointStore> {
  const { newDb, DataType } = await import('pg-mem');
  const mem = newDb();
  // What pg-mem's README has TypeORM users register: functions TypeORM calls while connecting.
  mem.public.registerFunction({ name: 'version', returns: DataType.text, implementation: () => 'PostgreSQL 16.0 (pg-mem)' });
  mem.public.registerFunction({ name: 'current_database', returns: DataType.text, implementation: () => 'bench' });
  const ds: DataSource = await mem.adapters.createTypeormDataSource({ type: 'postgres', entities: [Point] });
  await ds.initialize();
  await ds.synchronize();
  return viaRepository(ds, ds.getRepository(Point), benchEnv().insert, async () => undefined);
}
