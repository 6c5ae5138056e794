/**
 * One fastInsert contract across the adapters, on PostgreSQL and MariaDB: one row in gives one
 * record out, an array in gives an array of records in input order, each carrying the values
 * given and the generated key; `{ returning: false }` resolves to nothing and still writes.
 */
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { DataSource, Repository } from 'typeorm';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as drizzle from '../../adapters/drizzle/index.js';
import * as prisma from '../../adapters/prisma/index.js';
import * as typeorm from '../../adapters/typeorm/index.js';
import { closeDataSource } from '../../adapters/typeorm/orm.js';
import type { TestDatabase } from '../../src/types.js';
import * as myZoo from '../drizzle/zoo-mysql.js';
import * as pgZoo from '../drizzle/zoo-pg.js';
import { ensureGenerated } from '../prisma/generate.js';
import { buildZoo, SnakeNamingStrategy, type ZooEngine } from '../typeorm/zoo.js';

type Row = Record<string, unknown>;

/** One adapter on one engine, reduced to the calls the contract is about. */
interface Subject {
  /** The field that takes the given text, and the generated key. */
  text: string;
  key: string;
  insert(rows: Row | Row[], options?: { returning: false }): Promise<unknown>;
  /** The stored texts, in key order. */
  stored(like: string): Promise<string[]>;
  close(): Promise<void>;
}

async function typeormSubject(engine: ZooEngine): Promise<Subject> {
  const zoo = buildZoo(engine);
  const options = {
    type: engine === 'postgres' ? 'postgres' : 'mariadb',
    entities: zoo.entities,
    namingStrategy: new SnakeNamingStrategy(),
  } as const;
  const t: { dataSource: DataSource; database: TestDatabase } = await typeorm.typeormTestDb(options, {
    worker: 'contract',
    suffix: `contract${engine}`,
  });
  const repo = t.dataSource.getRepository(zoo.Author);
  return {
    text: 'name',
    key: 'id',
    insert: (rows, o) => typeorm.fastInsert(repo, rows as never, o as never),
    stored: async (like) =>
      (await t.dataSource.query(`SELECT name FROM zoo_author WHERE name LIKE '${like}' ORDER BY id`)).map((r: Row) => r.name),
    close: async () => {
      await closeDataSource(t.dataSource);
      await t.database.destroy({ force: true });
    },
  };
}

async function prismaSubject(engine: ZooEngine): Promise<Subject> {
  const schema = `test/prisma/zoo/${engine}/schema.prisma`;
  const mod = (await import(/* @vite-ignore */ `${ensureGenerated(schema)}/client.ts`)) as {
    PrismaClient: new (o: { adapter: never }) => any;
  };
  const t = await prisma.prismaTestDb({
    client: mod.PrismaClient,
    schema,
    migrations: `test/prisma/zoo/${engine}/migrations`,
    suffix: `contract${engine}`,
  });
  const client = t.prisma as any;
  return {
    text: 'email',
    key: 'id',
    insert: (rows, o) => prisma.fastInsert(client.account, rows as never, o as never),
    stored: async (like) =>
      (await client.account.findMany({ where: { email: { startsWith: like.replace('%', '') } }, orderBy: { id: 'asc' } })).map(
        (r: Row) => r.email,
      ),
    close: async () => {
      await t[Symbol.asyncDispose]();
    },
  };
}

async function drizzleSubject(engine: ZooEngine): Promise<Subject> {
  const zoo = engine === 'postgres' ? pgZoo : myZoo;
  const t = await drizzle.drizzleTestDb({
    schema: zoo,
    engine,
    driver: engine === 'postgres' ? 'pg' : 'mysql2',
    casing: 'snake_case',
    suffix: `contract${engine}`,
  });
  const db = t.db as any;
  return {
    text: 'fullName',
    key: 'id',
    insert: (rows, o) => drizzle.fastInsert(db, zoo.people as any, rows as never, o as never),
    stored: async (like) =>
      (await db.select().from(zoo.people).orderBy(zoo.people.id))
        .map((r: Row) => r.fullName as string)
        .filter((n: string) => n.startsWith(like.replace('%', ''))),
    close: async () => {
      await t[Symbol.asyncDispose]();
    },
  };
}

const adapters = { typeorm: typeormSubject, prisma: prismaSubject, drizzle: drizzleSubject };
const engines: ZooEngine[] = ['postgres', 'mysql'];

for (const engine of engines) {
  for (const [name, open] of Object.entries(adapters)) {
    describe(`fastInsert contract: ${name} on ${engine === 'mysql' ? 'MariaDB' : 'PostgreSQL'}`, () => {
      let s: Subject;
      beforeAll(async () => {
        s = await open(engine);
      });
      afterAll(async () => {
        await s?.close();
      });
      const value = (tag: string) => (s.text === 'email' ? `${tag}@x.io` : tag);

      it('one row in: one record out, with the value given and the generated key', async () => {
        const out = (await s.insert({ [s.text]: value('one-1') })) as Row;
        expect(Array.isArray(out)).toBe(false);
        expect(out[s.text]).toBe(value('one-1'));
        expect(Number(out[s.key])).toBeGreaterThan(0);
        expect(await s.stored('one-%')).toEqual([value('one-1')]);
      });

      it('an array in: an array of records out, in input order, keys ascending', async () => {
        const rows = ['many-a', 'many-c', 'many-b'].map((v) => ({ [s.text]: value(v) }));
        const out = (await s.insert(rows)) as Row[];
        expect(Array.isArray(out)).toBe(true);
        expect(out.map((r) => r[s.text])).toEqual(rows.map((r) => r[s.text]));
        const keys = out.map((r) => Number(r[s.key]));
        expect(keys.every((k) => k > 0)).toBe(true);
        expect([...keys].sort((x, y) => x - y)).toEqual(keys);
        expect(await s.stored('many-%')).toEqual(rows.map((r) => r[s.text]));
      });

      it('a one-row array still gives an array', async () => {
        const out = (await s.insert([{ [s.text]: value('lone-1') }])) as Row[];
        expect(out).toHaveLength(1);
        expect(out[0]![s.text]).toBe(value('lone-1'));
      });

      it('returning: false resolves to nothing, for one row and for many, and writes them', async () => {
        expect(await s.insert({ [s.text]: value('quiet-1') }, { returning: false })).toBeUndefined();
        expect(await s.insert([{ [s.text]: value('quiet-2') }, { [s.text]: value('quiet-3') }], { returning: false })).toBeUndefined();
        expect(await s.stored('quiet-%')).toEqual(['quiet-1', 'quiet-2', 'quiet-3'].map(value));
      });
    });
  }
}

describe('what a record carries beyond the key', () => {
  it('Drizzle on MariaDB: the static defaults and nulls it knows, not the server-computed ones', async () => {
    const s = await drizzleSubject('mysql');
    try {
      const out = (await s.insert({ fullName: 'defaults' })) as Row;
      expect(out).toMatchObject({ fullName: 'defaults', age: 18, score: 0, active: true, mood: 'ok', born: null });
      expect(out).not.toHaveProperty('createdAt');
    } finally {
      await s.close();
    }
  });
});

describe('the signatures', () => {
  it('say one in, one out; an array in, an array out; returning: false, nothing (checked by tsc)', () => {
    // Never called: the assertions are on the types, which the project's type check compiles.
    const check = (pg: NodePgDatabase, my: MySql2Database, repo: Repository<Point>) => {
      type PgPerson = typeof pgZoo.people.$inferSelect;
      expectTypeOf(drizzle.fastInsert(pg, pgZoo.people, { fullName: 'x' })).resolves.toEqualTypeOf<PgPerson>();
      expectTypeOf(drizzle.fastInsert(pg, pgZoo.people, [{ fullName: 'x' }])).resolves.toEqualTypeOf<PgPerson[]>();
      expectTypeOf(drizzle.fastInsert(pg, pgZoo.people, { fullName: 'x' }, { returning: false })).resolves.toBeVoid();
      expectTypeOf(drizzle.fastInsert(my, myZoo.people, { fullName: 'x' }))
        .resolves.toHaveProperty('id')
        .toEqualTypeOf<number>();
      expectTypeOf(drizzle.fastInsert(my, myZoo.people, [{ fullName: 'x' }])).resolves.toBeArray();
      expectTypeOf(typeorm.fastInsert(repo, { x: 1 })).resolves.toEqualTypeOf<Point>();
      expectTypeOf(typeorm.fastInsert(repo, [{ x: 1 }])).resolves.toEqualTypeOf<Point[]>();
      expectTypeOf(typeorm.fastInsert(repo, [{ x: 1 }], { returning: false })).resolves.toBeVoid();
      type Delegate = {
        create(a: { data: { email: string } }): unknown;
        findFirstOrThrow(a?: never): Promise<{ id: number; email: string }>;
      };
      const user = {} as Delegate;
      expectTypeOf(prisma.fastInsert(user, { email: 'x' })).resolves.toEqualTypeOf<{ id: number; email: string }>();
      expectTypeOf(prisma.fastInsert(user, [{ email: 'x' }])).resolves.toEqualTypeOf<Array<{ id: number; email: string }>>();
      expectTypeOf(prisma.fastInsert(user, [{ email: 'x' }], { returning: false })).resolves.toBeVoid();
    };
    expect(check).toBeTypeOf('function');
  });
});

class Point {
  id!: number;
  x!: number;
}
