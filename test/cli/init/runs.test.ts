/**
 * init's output, run: a project in its "before" state (a shared test database migrated by the
 * runner's global setup, one worker), adopted by `fast-test-db init`, then its suite run unchanged
 * through the real runner on the server fast-test-db starts. No install per test: the project's
 * node_modules links to this repository's packages, and fast-test-db to this repository (its
 * dist/, which `npm run build` makes).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN } from '../../runners/harness.js';
import { init, makeProject, write, type Made } from './projects.js';
import { expectBuilt, linkModules, MARIADBD, runSuite, SWC } from './run-project.js';

beforeAll(expectBuilt);

describe('Jest + TypeORM on PostgreSQL', () => {
  let made: Made;
  afterAll(() => made?.cleanup());

  test('init drops the old global setup, wraps jest.config.js, and the suite passes with two workers, each on a database of its own', async () => {
    made = makeProject(
      { orm: 'typeorm', runner: 'jest', engine: 'postgres' },
      {
        'package.json': `${JSON.stringify(
          {
            name: 'points',
            private: true,
            scripts: { test: 'jest --runInBand' },
            dependencies: { pg: '^8.0.0', typeorm: '^0.3.20', 'reflect-metadata': '^0.2.0' },
            devDependencies: { jest: '^30.0.0', '@swc/jest': '^0.2.0', '@swc/core': '^1.0.0', typescript: '^5.9.0' },
          },
          null,
          2,
        )}\n`,
        'package-lock.json': '{}\n',
        'tsconfig.json': '{ "compilerOptions": { "experimentalDecorators": true, "emitDecoratorMetadata": true } }\n',
        'jest.config.js': `const swc = ${SWC};\n\nmodule.exports = {\n  testEnvironment: 'node',\n  testMatch: ['<rootDir>/test/**/*.test.ts'],\n  transform: { '^.+\\\\.ts$': ['@swc/jest', swc] },\n  globalSetup: '<rootDir>/test/global-setup.ts',\n  maxWorkers: 1, // one shared test database\n};\n`,
        'src/point.entity.ts': `import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';\n\n@Entity()\nexport class Point {\n  @PrimaryGeneratedColumn()\n  id!: number;\n\n  @Column()\n  x!: number;\n}\n`,
        'src/data-source.ts': `import 'reflect-metadata';\nimport type { DataSourceOptions } from 'typeorm';\nimport { Point } from './point.entity';\n\nexport const dataSourceOptions: DataSourceOptions = {\n  type: 'postgres',\n  url: process.env.DATABASE_URL,\n  entities: [Point],\n};\n`,
        'test/global-setup.ts': `import { DataSource } from 'typeorm';\nimport { dataSourceOptions } from '../src/data-source';\n\nexport default async function globalSetup() {\n  const ds = new DataSource(dataSourceOptions);\n  await ds.initialize();\n  await ds.synchronize(true);\n  await ds.destroy();\n}\n`,
        ...Object.fromEntries(
          ['a', 'b', 'c'].map((f) => [
            `test/${f}.test.ts`,
            `import { DataSource } from 'typeorm';\nimport { dataSourceOptions } from '../src/data-source';\nimport { Point } from '../src/point.entity';\n\nconst ds = new DataSource(dataSourceOptions);\nbeforeAll(() => ds.initialize());\nafterAll(() => ds.destroy());\n\ntest('${f}: a row in, the same row out', async () => {\n  expect(process.env.DATABASE_URL).toMatch(/\\/ftdb_/);\n  const saved = await ds.getRepository(Point).save({ x: ${f.charCodeAt(0)} });\n  expect(await ds.getRepository(Point).findOneByOrFail({ id: saved.id })).toMatchObject({ x: ${f.charCodeAt(0)} });\n});\n`,
          ]),
        ),
      },
    );
    linkModules(made.dir);
    const r = await init(made.dir);
    expect(r.code, JSON.stringify(r.error)).toBe(0);
    expect(r.json.left).toEqual([]);
    expect(r.json.files.map((f) => [f.path, f.lines])).toEqual([['jest.config.js', 8]]);
    expect(made.read('jest.config.js')).not.toContain('globalSetup');
    const run = await runSuite('init-jest', made.dir, BIN('jest'), ['--maxWorkers=2', `--cacheDirectory=${join(made.dir, '.jest-cache')}`]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 240_000);
});

describe.skipIf(!MARIADBD)('Vitest + Drizzle on MariaDB', () => {
  let made: Made;
  afterAll(() => made?.cleanup());

  test("init wraps vitest.config.ts with drizzleTemplate over the migrations folder and the app's seed script, and the suite passes in parallel", async () => {
    made = makeProject({
      orm: 'drizzle',
      runner: 'vitest',
      engine: 'mysql',
      pkg: {
        scripts: { test: 'vitest run', 'db:seed': 'node seed.mjs' },
        dependencies: { 'drizzle-orm': '^0.45.0', mysql2: '^3.0.0' },
        devDependencies: { vitest: '^4.0.0', 'drizzle-kit': '^0.31.0', typescript: '^5.9.0' },
      },
    });
    write(made.dir, {
      // The app's own seed, run once into the template with its URL in DATABASE_URL.
      'seed.mjs':
        "import mysql from 'mysql2/promise';\nconst c = await mysql.createConnection(process.env.DATABASE_URL);\nawait c.query(\"INSERT INTO users (name) VALUES ('seeded')\");\nawait c.end();\n",
      'drizzle/0000_init.sql':
        'CREATE TABLE `users` (\n\t`id` int AUTO_INCREMENT NOT NULL,\n\t`name` varchar(100) NOT NULL,\n\tCONSTRAINT `users_id` PRIMARY KEY(`id`)\n);\n',
      'drizzle/meta/_journal.json': `${JSON.stringify({ version: '7', dialect: 'mysql', entries: [{ idx: 0, version: '5', when: 1735689600000, tag: '0000_init', breakpoints: true }] })}\n`,
      'src/db.ts': `import { drizzle } from 'drizzle-orm/mysql2';\nimport mysql from 'mysql2/promise';\nimport * as schema from './schema';\n\nexport const pool = mysql.createPool(process.env.DATABASE_URL!);\nexport const db = drizzle(pool, { schema, mode: 'default' });\n`,
      'vitest.config.ts': `import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  test: {\n    include: ['test/**/*.test.ts'],\n    globalSetup: ['./test/global-setup.ts'],\n    fileParallelism: false,\n  },\n});\n`,
      'test/global-setup.ts': `import { drizzle } from 'drizzle-orm/mysql2';\nimport { migrate } from 'drizzle-orm/mysql2/migrator';\nimport mysql from 'mysql2/promise';\n\nexport default async function setup() {\n  const pool = mysql.createPool(process.env.DATABASE_URL!);\n  await migrate(drizzle(pool), { migrationsFolder: 'drizzle' });\n  await pool.end();\n}\n`,
      'test/user.test.ts': '',
      ...Object.fromEntries(
        ['a', 'b', 'c'].map((f) => [
          `test/${f}.test.ts`,
          `import { eq } from 'drizzle-orm';\nimport { afterAll, expect, test } from 'vitest';\nimport { db, pool } from '../src/db';\nimport { users } from '../src/schema';\n\nafterAll(() => pool.end());\n\ntest('${f}: a row in, the same row out', async () => {\n  expect(process.env.DATABASE_URL).toMatch(/^mysql:\\/\\/.*\\/ftdb_/);\n  const [res] = await db.insert(users).values({ name: '${f}' });\n  const [row] = await db.select().from(users).where(eq(users.id, res.insertId));\n  expect(row).toMatchObject({ name: '${f}' });\n  const [seeded] = await db.select().from(users).where(eq(users.id, 1));\n  expect(seeded).toMatchObject({ name: 'seeded' });\n});\n`,
        ]),
      ),
    });
    // The generated placeholder test is not part of this suite.
    write(made.dir, { 'test/user.test.ts': `import { test } from 'vitest';\ntest('placeholder', () => {});\n` });
    linkModules(made.dir);
    const r = await init(made.dir);
    expect(r.code, JSON.stringify(r.error)).toBe(0);
    expect(r.json.left).toEqual([]);
    const config = made.read('vitest.config.ts');
    expect(config).toContain("adapter: () => drizzleTemplate({ schema, migrationsFolder: 'drizzle' })");
    expect(config).toContain("seed: 'npm run db:seed',");
    expect(config).not.toContain('global-setup');
    expect(r.json.notes.some((n) => n.includes('fileParallelism: false'))).toBe(true);
    const run = await runSuite('init-vitest', made.dir, BIN('vitest'), ['run']);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Tests\s+4 passed/);
  }, 240_000);
});

describe('node:test + a migrate script, no ORM, on PostgreSQL', () => {
  let made: Made;
  afterAll(() => made?.cleanup());

  test("init writes fast-test-db.config.mjs with the app's db:migrate command and adds the preload to the test script; npm test passes", async () => {
    const pg = "import pg from 'pg';\n";
    made = makeProject(
      { orm: 'drizzle', runner: 'node-test', engine: 'postgres' },
      {
        'package.json': `${JSON.stringify(
          {
            name: 'plain',
            private: true,
            type: 'module',
            scripts: { test: 'node --test test/a.test.mjs test/b.test.mjs', 'db:migrate': 'node migrate.mjs' },
            dependencies: { pg: '^8.0.0' },
          },
          null,
          2,
        )}\n`,
        'package-lock.json': '{}\n',
        'migrations/001_notes.sql': 'CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);\n',
        // The app's own migration runner: every file of migrations/, in order, on DATABASE_URL.
        'migrate.mjs': `import { readdirSync, readFileSync } from 'node:fs';\n${pg}const c = new pg.Client({ connectionString: process.env.DATABASE_URL });\nawait c.connect();\nfor (const f of readdirSync('migrations').sort()) await c.query(readFileSync(\`migrations/\${f}\`, 'utf8'));\nawait c.end();\n`,
        ...Object.fromEntries(
          ['a', 'b'].map((f) => [
            `test/${f}.test.mjs`,
            `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n${pg}\ntest('${f}: a note in, the same note out', async () => {\n  assert.match(process.env.DATABASE_URL, /\\/ftdb_/);\n  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });\n  await c.connect();\n  const { rows } = await c.query("INSERT INTO notes (body) VALUES ('${f}') RETURNING id");\n  const back = await c.query('SELECT body FROM notes WHERE id = $1', [rows[0].id]);\n  assert.equal(back.rows[0].body, '${f}');\n  await c.end();\n});\n`,
          ]),
        ),
      },
    );
    linkModules(made.dir);
    const r = await init(made.dir);
    expect(r.code, JSON.stringify(r.error)).toBe(0);
    expect(r.json.left).toEqual([]);
    expect(made.read('fast-test-db.config.mjs')).toBe(
      "import { defineConfig } from 'fast-test-db';\n\nexport default defineConfig({\n  migrate: 'npm run db:migrate',\n  migrationFiles: 'migrations/**',\n});\n",
    );
    expect(JSON.parse(made.read('package.json')).scripts.test).toBe(
      'node --import fast-test-db/node-test --test test/a.test.mjs test/b.test.mjs',
    );
    const run = await runSuite('init-node-test', made.dir, 'npm', ['test']);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/# pass 2/);
  }, 240_000);
});

describe('Mocha (--parallel) + a migrate script, no ORM, on PostgreSQL', () => {
  let made: Made;
  afterAll(() => made?.cleanup());

  test('init adds --require fast-test-db/mocha to the test script and writes fast-test-db.config.mjs; the mocha command of the test script passes, each worker on its own clone', async () => {
    const pg = "import pg from 'pg';\n";
    made = makeProject(
      { orm: 'drizzle', runner: 'mocha', engine: 'postgres' },
      {
        'package.json': `${JSON.stringify(
          {
            name: 'notes',
            private: true,
            type: 'module',
            scripts: { test: 'mocha --parallel --jobs 2 test/*.spec.mjs', migrate: 'node migrate.mjs' },
            dependencies: { pg: '^8.0.0' },
            devDependencies: { mocha: '^11.0.0' },
          },
          null,
          2,
        )}\n`,
        'package-lock.json': '{}\n',
        'db/migrations/001_notes.sql': 'CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);\n',
        'migrate.mjs': `import { readdirSync, readFileSync } from 'node:fs';\n${pg}const c = new pg.Client({ connectionString: process.env.DATABASE_URL });\nawait c.connect();\nfor (const f of readdirSync('db/migrations').sort()) await c.query(readFileSync(\`db/migrations/\${f}\`, 'utf8'));\nawait c.end();\n`,
        ...Object.fromEntries(
          ['a', 'b'].map((f) => [
            `test/${f}.spec.mjs`,
            `import assert from 'node:assert/strict';\n${pg}\nit('${f}: a note in, the same note out', async () => {\n  assert.match(process.env.DATABASE_URL, /\\/ftdb_/);\n  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });\n  await c.connect();\n  const { rows } = await c.query("INSERT INTO notes (body) VALUES ('${f}') RETURNING id");\n  assert.equal((await c.query('SELECT body FROM notes WHERE id = $1', [rows[0].id])).rows[0].body, '${f}');\n  await c.end();\n});\n`,
          ]),
        ),
      },
    );
    linkModules(made.dir);
    const r = await init(made.dir);
    expect(r.code, JSON.stringify(r.error)).toBe(0);
    expect(r.json.left).toEqual([]);
    expect(made.read('fast-test-db.config.mjs')).toContain("migrate: 'npm run migrate',\n  migrationFiles: 'db/migrations/**',");
    expect(JSON.parse(made.read('package.json')).scripts.test).toBe(
      'mocha --require fast-test-db/mocha --parallel --jobs 2 test/*.spec.mjs',
    );
    // The script as written, with Mocha taken through the project's link: Mocha resolves --require
    // from where it is installed (in an app, the app's node_modules), so the link must not be resolved away.
    const [, ...args] = JSON.parse(made.read('package.json')).scripts.test.split(' ');
    const mocha = join(made.dir, 'node_modules/mocha/bin/mocha.js');
    const run = await runSuite('init-mocha', made.dir, process.execPath, [
      '--preserve-symlinks',
      '--preserve-symlinks-main',
      mocha,
      ...args,
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/2 passing/);
  }, 240_000);
});
