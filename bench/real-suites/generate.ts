/**
 * The real-suite shapes, written as source into a directory of their own: no app is copied, every
 * file comes from here. Each shape writes a plain config (an app's own: a server already up, its URL
 * in APP_DATABASE_URL, its schema made by the suite's global setup) and a fast-test-db config (the
 * runner wrapper imported by name from the packed package, the same schema as its migrate).
 */
import { writeInserts } from './inserts.js';
import { writeNest } from './nest.js';
import { jestBase, markModule, packageJson, pad, put, tsJestConfig } from './write.js';

export { FIRST_TEST_MARKS } from './write.js';

export type ShapeId = 'imports' | 'drizzle' | 'nest' | 'typeorm-pg' | 'typeorm-mariadb' | 'inserts';

export interface Shape {
  id: ShapeId;
  runner: 'vitest' | 'jest';
  engine: 'postgres' | 'mysql';
  title: string;
}

export const SHAPES: Record<ShapeId, Shape> = {
  imports: { id: 'imports', runner: 'vitest', engine: 'postgres', title: 'import-heavy Vitest suite, pg' },
  drizzle: { id: 'drizzle', runner: 'vitest', engine: 'postgres', title: 'Drizzle + postgres.js, Vitest, BEGIN/ROLLBACK per test' },
  nest: {
    id: 'nest',
    runner: 'jest',
    engine: 'postgres',
    title: 'NestJS-style e2e, Jest (ts-jest), app module bootstrapped per file, TypeORM repositories over HTTP',
  },
  'typeorm-pg': { id: 'typeorm-pg', runner: 'jest', engine: 'postgres', title: 'TypeORM synchronize per file, Jest (ts-jest), PostgreSQL' },
  inserts: {
    id: 'inserts',
    runner: 'jest',
    engine: 'postgres',
    title: "TypeORM save() one row at a time, 4 Jest files in band (ts-jest), the seed's 70,000 inserts",
  },
  'typeorm-mariadb': {
    id: 'typeorm-mariadb',
    runner: 'jest',
    engine: 'mysql',
    title: 'TypeORM synchronize per file, Jest (ts-jest), MariaDB',
  },
};

export interface ShapeScale {
  /** Test files (imports: ~100; drizzle: a few; nest and typeorm: a dozen). */
  files: number;
  /** Modules of the generated graph every file of the import-heavy shape loads; the nest shape's feature modules. */
  modules?: number;
  /** The inserts shape: rows per batch (full: 10,000, i.e. 70,000 inserts in 4 files). */
  rows?: number;
  /** Rounds for this shape when fewer than the section's fit the time (a leg on the durable server takes over a minute). */
  rounds?: number;
}

const PG_SCHEMA = `CREATE TABLE IF NOT EXISTS account (id serial PRIMARY KEY, email text NOT NULL UNIQUE, plan text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS invoice (id serial PRIMARY KEY, account_id int NOT NULL REFERENCES account(id), cents int NOT NULL, status text NOT NULL);
CREATE INDEX IF NOT EXISTS invoice_account ON invoice (account_id);`;

/** A Vitest project's two configs: plain (global setup makes the schema in the shared database) and fast-test-db. */
function vitestConfigs(dir: string, include: string, schema: string): void {
  put(dir, 'test/mark.ts', markModule('vitest'));
  put(dir, 'schema.ts', `export const SCHEMA = ${JSON.stringify(schema)};\n`);
  put(
    dir,
    'plain-global-setup.ts',
    `// The app's own global setup: its migrations into the shared database the compose file runs.
import pg from 'pg';
import { SCHEMA } from './schema.js';
export default async function () {
  const c = new pg.Client(process.env.APP_DATABASE_URL);
  await c.connect();
  await c.query(SCHEMA);
  await c.end();
}
`,
  );
  put(
    dir,
    'vitest.plain.config.ts',
    `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { include: [${JSON.stringify(include)}], globalSetup: ['./plain-global-setup.ts'] } });
`,
  );
  put(
    dir,
    'vitest.ftdb.config.ts',
    `import pg from 'pg';
import { defineConfig } from 'vitest/config';
import { SCHEMA } from './schema.js';
import { withFastTestDb } from 'fast-test-db/vitest';
export default defineConfig(
  withFastTestDb(
    { test: { include: [${JSON.stringify(include)}] } },
    {
      envVar: 'APP_DATABASE_URL',
      // The schema is a constant of the suite: the template is reused until it changes.
      cacheKey: String(SCHEMA.length),
      async migrate(url: string) {
        const c = new pg.Client(url);
        await c.connect();
        await c.query(SCHEMA);
        await c.end();
      },
    },
  ),
);
`,
  );
}

/** A module of the graph: a few hundred lines of typed data and functions over it, as an app's domain code. */
function graphModule(i: number, modules: number): string {
  const next = i + 1 < modules ? `import { rate${i + 1} } from './m${pad(i + 1)}.js';\n` : '';
  const rows = Array.from(
    { length: 120 },
    (_, k) =>
      `  { code: 'c${i}-${k}', label: 'Item ${i}/${k} of the catalog', weight: ${(k * 7 + i) % 97}, tags: ['t${k % 5}', 't${(k + i) % 7}'] },`,
  ).join('\n');
  const fns = Array.from(
    { length: 20 },
    (_, k) => `export function rule${i}_${k}(x: Entry): number {
  const base = x.weight * ${k + 1} + x.tags.length;
  return x.code.endsWith('${k}') ? base * 2 : base - ${k};
}`,
  ).join('\n');
  return `${next}export interface Entry { code: string; label: string; weight: number; tags: string[] }
export const table${i}: Entry[] = [
${rows}
];
${fns}
export function rate${i}(n: number): number {
  return ${i + 1 < modules ? `rate${i + 1}(n) + ` : ''}table${i}.reduce((s, x) => s + rule${i}_${i % 20}(x), 0) * n;
}
`;
}

/** Shape (a): ~100 files, each loading a module graph of a few hundred KB, then 2-3 queries through pg. */
export function writeImports(dir: string, scale: ShapeScale): void {
  const modules = scale.modules ?? 24;
  for (let i = 0; i < modules; i++) put(dir, `src/lib/m${pad(i)}.ts`, graphModule(i, modules));
  put(dir, 'src/lib/index.ts', Array.from({ length: modules }, (_, i) => `export * from './m${pad(i)}.js';`).join('\n') + '\n');
  put(
    dir,
    'src/db.ts',
    `import pg from 'pg';
export const pool = new pg.Pool({ connectionString: process.env.APP_DATABASE_URL, max: 2 });
`,
  );
  for (let f = 0; f < scale.files; f++)
    put(
      dir,
      `test/f${pad(f)}.test.ts`,
      `import './mark.js';
import { afterAll, expect, test } from 'vitest';
import { pool } from '../src/db.js';
import { rate0, table${f % modules} } from '../src/lib/index.js';
afterAll(() => pool.end());
test('bills an account for its plan', async () => {
  const price = Math.round(rate0(1)) % 10_000;
  const { rows: [a] } = await pool.query('INSERT INTO account (email, plan) VALUES ($1, $2) RETURNING id', ['f${f}-' + process.pid + '-' + Date.now() + '@x.test', 'pro']);
  await pool.query("INSERT INTO invoice (account_id, cents, status) VALUES ($1, $2, 'open')", [a.id, price]);
  const { rows } = await pool.query('SELECT sum(cents)::int AS total FROM invoice WHERE account_id = $1', [a.id]);
  expect(rows[0].total).toBe(price);
});
test('reads the catalog', () => {
  expect(table${f % modules}.length).toBe(120);
});
`,
    );
  vitestConfigs(dir, 'test/*.test.ts', PG_SCHEMA);
}

const DRIZZLE_SCHEMA = `CREATE TABLE IF NOT EXISTS author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE IF NOT EXISTS book (id serial PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL, pages int NOT NULL);`;

/** Shape (b): Drizzle over postgres.js, one connection per file, every test inside BEGIN ... ROLLBACK. */
export function writeDrizzle(dir: string, scale: ShapeScale): void {
  put(
    dir,
    'src/db.ts',
    `import { drizzle } from 'drizzle-orm/postgres-js';
import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
export const author = pgTable('author', { id: serial('id').primaryKey(), name: text('name').notNull() });
export const book = pgTable('book', {
  id: serial('id').primaryKey(),
  authorId: integer('author_id').notNull().references(() => author.id),
  title: text('title').notNull(),
  pages: integer('pages').notNull(),
});
// One connection: BEGIN and ROLLBACK around each test must be on the connection the test uses.
export const sql = postgres(process.env.APP_DATABASE_URL!, { max: 1, onnotice: () => {} });
export const db = drizzle(sql);
`,
  );
  const perFile = Math.ceil(50 / scale.files);
  for (let f = 0; f < scale.files; f++) {
    const tests = Array.from(
      { length: perFile },
      (_, t) => `test('author ${f}.${t} writes books and counts them', async () => {
  const [a] = await db.insert(author).values({ name: 'author ${f}.${t}' }).returning();
  await db.insert(book).values([1, 2, 3].map((n) => ({ authorId: a!.id, title: 'book ' + n, pages: n * ${t + 10} })));
  const rows = await db.select({ n: count() }).from(book).where(eq(book.authorId, a!.id));
  expect(rows[0]!.n).toBe(3);
});`,
    ).join('\n');
    put(
      dir,
      `test/f${pad(f)}.test.ts`,
      `import './mark.js';
import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest';
import { author, book, db, sql } from '../src/db.js';
beforeEach(async () => void (await sql\`BEGIN\`));
afterEach(async () => void (await sql\`ROLLBACK\`));
afterAll(() => sql.end());
${tests}
`,
    );
  }
  vitestConfigs(dir, 'test/*.test.ts', DRIZZLE_SCHEMA);
}

/** Shape (c): TypeORM entities, a DataSource with synchronize per file, Jest with ts-jest; PostgreSQL or MariaDB. */
export function writeTypeorm(dir: string, scale: ShapeScale, engine: 'postgres' | 'mysql'): void {
  const type = engine === 'postgres' ? 'postgres' : 'mariadb';
  tsJestConfig(dir);
  put(dir, 'test/mark.ts', markModule('jest'));
  put(
    dir,
    'src/entities.ts',
    `import 'reflect-metadata';
import { Column, Entity, ManyToOne, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
@Entity()
export class Customer {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 120 }) email!: string;
  @Column({ type: 'varchar', length: 40 }) tier!: string;
  @OneToMany(() => Purchase, (p) => p.customer) purchases!: Purchase[];
}
@Entity()
export class Purchase {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'int' }) cents!: number;
  @Column({ type: 'varchar', length: 40 }) state!: string;
  @ManyToOne(() => Customer, (c) => c.purchases) customer!: Customer;
}
`,
  );
  put(
    dir,
    'src/data-source.ts',
    `import { DataSource } from 'typeorm';
import { Customer, Purchase } from './entities';
export function dataSource(): DataSource {
  return new DataSource({ type: '${type}', url: process.env.APP_DATABASE_URL, entities: [Customer, Purchase], synchronize: true, logging: false });
}
`,
  );
  for (let f = 0; f < scale.files; f++) {
    const tests = Array.from(
      { length: 8 },
      (_, t) => `  it('keeps the purchases of customer ${f}.${t}', async () => {
    const c = await ds.getRepository(Customer).save({ email: 'c${f}-${t}-' + process.pid + '@x.test', tier: 'gold' });
    await ds.getRepository(Purchase).save([1, 2].map((n) => ({ cents: n * ${t + 100}, state: 'paid', customer: c })));
    const found = await ds.getRepository(Customer).findOne({ where: { id: c.id }, relations: { purchases: true } });
    expect(found!.purchases).toHaveLength(2);
  });`,
    ).join('\n');
    put(
      dir,
      `test/f${pad(f)}.test.ts`,
      `import './mark';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataSource } from '../src/data-source';
import { Customer, Purchase } from '../src/entities';
describe('file ${f}', () => {
  const ds = dataSource();
  beforeAll(() => ds.initialize());
  afterAll(() => ds.destroy());
${tests}
});
`,
    );
  }
  const base = jestBase('test/*.test.ts');
  put(dir, 'jest.plain.config.cjs', `module.exports = ${base};\n`);
  put(
    dir,
    'jest.ftdb.config.cjs',
    `const { withFastTestDb } = require('fast-test-db/jest');
module.exports = withFastTestDb(${base}, { engine: '${engine}', envVar: 'APP_DATABASE_URL', cacheKey: 'bench-rs-typeorm', async migrate() {} });
`,
  );
}

export function writeShape(shape: ShapeId, dir: string, scale: ShapeScale): void {
  packageJson(dir, shape, SHAPES[shape].runner);
  if (shape === 'imports') writeImports(dir, scale);
  else if (shape === 'drizzle') writeDrizzle(dir, scale);
  else if (shape === 'nest') writeNest(dir, scale);
  else if (shape === 'inserts') writeInserts(dir, scale);
  else writeTypeorm(dir, scale, SHAPES[shape].engine);
}
