/**
 * init's login, run: a TypeORM app on MariaDB whose code spells out its user and password (and
 * reads only its address and database from env names), adopted by init and run unchanged through
 * the real Jest. The embedded MariaDB's root has a password fast-test-db made; the app's login
 * has the app's.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN } from '../../runners/harness.js';
import { init, makeProject, type Made } from './projects.js';
import { expectBuilt, linkModules, MARIADBD, runSuite, SWC } from './run-project.js';

beforeAll(expectBuilt);

describe.runIf(MARIADBD)('Jest + TypeORM on MariaDB, with the login written in the code', () => {
  let made: Made;
  afterAll(() => made?.cleanup());

  test('init writes login; every test connects as that login, to its worker’s database', async () => {
    made = makeProject(
      { orm: 'typeorm', runner: 'jest', engine: 'mysql' },
      {
        'package.json': `${JSON.stringify(
          {
            name: 'shop',
            private: true,
            scripts: { test: 'jest' },
            dependencies: { mysql2: '^3.9.0', typeorm: '^0.3.20', 'reflect-metadata': '^0.2.0' },
            devDependencies: { jest: '^30.0.0', '@swc/jest': '^0.2.0', '@swc/core': '^1.0.0', typescript: '^5.9.0' },
          },
          null,
          2,
        )}\n`,
        'package-lock.json': '{}\n',
        'jest.config.js': `const swc = ${SWC};\n\nmodule.exports = {\n  testEnvironment: 'node',\n  testMatch: ['<rootDir>/test/**/*.test.ts'],\n  transform: { '^.+\\\\.ts$': ['@swc/jest', swc] },\n};\n`,
        'src/item.entity.ts': `import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';\n\n@Entity()\nexport class Item {\n  @PrimaryGeneratedColumn()\n  id!: number;\n\n  @Column()\n  qty!: number;\n}\n`,
        'src/data-source.ts': `import 'reflect-metadata';\nimport type { DataSourceOptions } from 'typeorm';\nimport { Item } from './item.entity';\n\nexport const dataSourceOptions: DataSourceOptions = {\n  type: 'mariadb',\n  host: process.env.DB_HOST ?? 'localhost',\n  port: Number(process.env.DB_PORT ?? 3306),\n  username: 'shop',\n  password: process.env.DB_PASSWORD || 'shop-pass',\n  database: process.env.DB_DATABASE ?? 'shop',\n  entities: [Item],\n};\n`,
        ...Object.fromEntries(
          ['a', 'b'].map((f) => [
            `test/${f}.test.ts`,
            `import { DataSource } from 'typeorm';\nimport { dataSourceOptions } from '../src/data-source';\nimport { Item } from '../src/item.entity';\n\nconst ds = new DataSource(dataSourceOptions);\nbeforeAll(() => ds.initialize());\nafterAll(() => ds.destroy());\n\ntest('${f}: as the app\\'s login, on a database of our own', async () => {\n  expect(process.env.DB_DATABASE).toMatch(/^ftdb_/);\n  const [who] = await ds.query('SELECT CURRENT_USER() AS u, DATABASE() AS d');\n  expect(who.u).toMatch(/^shop@/);\n  expect(who.d).toBe(process.env.DB_DATABASE);\n  const saved = await ds.getRepository(Item).save({ qty: 3 });\n  expect(await ds.getRepository(Item).findOneByOrFail({ id: saved.id })).toMatchObject({ qty: 3 });\n  await ds.query('TRUNCATE TABLE item');\n});\n`,
          ]),
        ),
      },
    );
    linkModules(made.dir);
    const r = await init(made.dir);
    expect(r.code, JSON.stringify(r.error)).toBe(0);
    expect(r.json.left).toEqual([]);
    const config = made.read('jest.config.js');
    expect(config).toContain("env: { DB_HOST: 'host', DB_PORT: 'port', DB_PASSWORD: 'password', DB_DATABASE: 'database' },");
    expect(config).toContain("login: { user: 'shop', password: 'shop-pass' },");
    const run = await runSuite('init-jest-login', made.dir, BIN('jest'), [
      '--maxWorkers=2',
      `--cacheDirectory=${join(made.dir, '.jest-cache')}`,
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 240_000);
});
