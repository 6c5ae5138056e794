/**
 * migrate and seed in their three forms on the suite's embedded PostgreSQL: a TypeScript module of
 * the project (run under tsx, importing another of its modules), a seed module that only runs, a
 * command; what a seed reads counts in the fingerprint without being listed.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createTestDatabase, FastTestDbError } from '../../src/index.js';
import { stepInputs } from '../../src/core/step-inputs.js';
import { ROOT, sql } from './helpers.js';

const STEPS = 'test/fixtures/core/steps';
// A copy of the fixtures that a test may edit; inside the project, where tsx and pg resolve.
const copy = mkdtempSync(join(ROOT, STEPS, '..', 'steps-copy-'));
cpSync(join(ROOT, STEPS), copy, { recursive: true });
const COPY = relative(ROOT, copy);
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const items = async (url: string) => (await sql(url, 'SELECT id, label FROM step_item ORDER BY id')).map((r) => `${r.id}:${r.label}`);

describe('a module migrate', () => {
  test('a TypeScript module importing another of the project runs under tsx, called (url, ctx)', async () => {
    const db = await createTestDatabase({ worker: 'mod', migrate: { module: `./${STEPS}/migrate.ts` } });
    try {
      expect(await items(db.url)).toEqual([]);
      expect(db.template.built).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  test('a module whose export throws: MIGRATION_FAILED naming the module, with its error', async () => {
    const error = await createTestDatabase({
      worker: 'modfail',
      migrate: { module: `./${STEPS}/migrate.ts` },
      seed: { module: `./${STEPS}/throws.ts`, export: 'seed' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastTestDbError);
    expect((error as FastTestDbError).code).toBe('MIGRATION_FAILED');
    expect((error as FastTestDbError).message).toMatch(/^seed module \.\/test\/fixtures\/core\/steps\/throws\.ts exited with code 1/);
    expect((error as FastTestDbError).message).toContain('seed row 3 violates a constraint');
  });

  test('a module that does not exist: BAD_OPTION with the path it looked for', async () => {
    const error = await createTestDatabase({ worker: 'modnone', migrate: { module: './nowhere/migrate.ts' } }).catch((e: unknown) => e);
    expect((error as FastTestDbError).code).toBe('BAD_OPTION');
    expect((error as FastTestDbError).message).toContain(join(ROOT, 'nowhere/migrate.ts'));
  });
});

describe('a seed', () => {
  test('runs after migrate in the same build: every clone starts with its rows, and reset() keeps them', async () => {
    const db = await createTestDatabase({
      worker: 'seed',
      cacheKey: 'steps-seed',
      migrate: { module: `./${COPY}/migrate.ts` },
      seed: { module: `./${COPY}/seed.ts` },
    });
    try {
      expect(await items(db.url)).toEqual(['1:one', '2:two']);
      await sql(db.url, 'DELETE FROM step_item');
      await db.reset();
      expect(await items(db.url)).toEqual(['1:one', '2:two']);
    } finally {
      await db.destroy();
    }
  });

  test('a change in a file the seed imports makes a new template, without listing it', async () => {
    const options = { cacheKey: 'steps-fp', migrate: { module: `./${COPY}/migrate.ts` }, seed: { module: `./${COPY}/seed.ts` } };
    const first = await createTestDatabase({ ...options, worker: 'fp1' });
    const again = await createTestDatabase({ ...options, worker: 'fp2' });
    expect(again.template.name).toBe(first.template.name);
    expect(again.template.built).toBe(false);
    writeFileSync(join(copy, 'rows.ts'), "export const ROWS: ReadonlyArray<[number, string]> = [[3, 'three']];\n");
    const edited = await createTestDatabase({ ...options, worker: 'fp3' });
    try {
      expect(edited.template.name).not.toBe(first.template.name);
      expect(edited.template.built).toBe(true);
      expect(await items(edited.url)).toEqual(['3:three']);
    } finally {
      await Promise.all([first, again, edited].map((d) => d.destroy()));
    }
  });

  test('a command seed: the files it names and the package.json script it runs are its inputs', () => {
    const dir = mkdtempSync(join(copy, 'project-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { 'db:seed': 'tsx seed.ts --rows=data/rows.json' } }));
    cpSync(join(copy, 'seed.ts'), join(dir, 'seed.ts'));
    cpSync(join(copy, 'rows.ts'), join(dir, 'rows.ts'));
    writeFileSync(join(dir, 'other.ts'), '');
    const inputs = stepInputs('DEBUG=1 npm run db:seed && echo done', dir);
    expect(inputs.scripts).toEqual(['db:seed=tsx seed.ts --rows=data/rows.json']);
    expect(inputs.files.map((f) => relative(dir, f))).toEqual(['rows.ts', 'seed.ts']);
  });
});

describe('a command migrate', () => {
  test('without migrationFiles it builds, scoped to the run; the file it names is part of the fingerprint', async () => {
    const db = await createTestDatabase({ worker: 'cmdalone', migrate: `node ${COPY}/command.cjs` }).catch((e: unknown) => e);
    expect(db).toBeInstanceOf(FastTestDbError); // the file does not exist yet: the shell says so
    writeFileSync(
      join(copy, 'command.cjs'),
      "require('node:fs'); const pg = require('pg'); const c = new pg.Client(process.env.DATABASE_URL); c.connect().then(() => c.query('CREATE TABLE cmd_alone (id int)')).then(() => c.end());\n",
    );
    const built = await createTestDatabase({ worker: 'cmdalone', migrate: `node ${COPY}/command.cjs` });
    try {
      expect(await sql(built.url, "SELECT to_regclass('cmd_alone') IS NOT NULL AS ok")).toEqual([{ ok: true }]);
      expect(stepInputs(`node ${COPY}/command.cjs`).files).toEqual([join(copy, 'command.cjs')]);
    } finally {
      await built.destroy();
    }
  });
});

describe("a command's environment", () => {
  test("the app's env names get the template's connection, each its part", async () => {
    const { runMigrate } = await import('../../src/core/migrate-run.js');
    const connection = { host: '127.0.0.1', port: 5999, user: 'u1', password: 'p1', database: 'ftdb_tpl_x' };
    const check = [
      'const e = process.env;',
      "const want = { DATABASE_URL: 'postgres://u1:p1@127.0.0.1:5999/ftdb_tpl_x', APP_URL: 'postgres://u1:p1@127.0.0.1:5999/ftdb_tpl_x', DB_HOST: '127.0.0.1', DB_PORT: '5999', DB_USERNAME: 'u1', DB_PASSWORD: 'p1', DB_DATABASE: 'ftdb_tpl_x' };",
      "for (const [k, v] of Object.entries(want)) if (e[k] !== v) { console.error(k + '=' + e[k]); process.exit(4); }",
    ].join(' ');
    const job = {
      migrate: `node -e "${check}"`,
      url: 'postgres://u1:p1@127.0.0.1:5999/ftdb_tpl_x',
      ctx: { database: 'ftdb_tpl_x', server: {} as never, connection },
      timeoutMs: 30_000,
      envVars: ['APP_URL'],
      env: process.env,
    };
    await expect(runMigrate(job)).rejects.toThrow(/exited with code 4[\s\S]*DB_HOST=undefined/);
    await runMigrate({
      ...job,
      appEnv: { DB_HOST: 'host', DB_PORT: 'port', DB_USERNAME: 'user', DB_PASSWORD: 'password', DB_DATABASE: 'database' },
    });
  });
});

describe('a TypeScript module where tsx is not installed', () => {
  test('PEER_MISSING with the install line, before anything runs', async () => {
    const { moduleCommand } = await import('../../src/core/migrate-module.js');
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-no-tsx-'));
    try {
      writeFileSync(join(dir, 'seed.ts'), 'export default async () => {};\n');
      let error: unknown;
      try {
        moduleCommand({ module: './seed.ts' }, dir, 'seed');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FastTestDbError);
      expect((error as FastTestDbError).code).toBe('PEER_MISSING');
      expect((error as FastTestDbError).fix).toMatch(/^npm install --save-dev tsx/);
      // A JavaScript module needs no tsx.
      writeFileSync(join(dir, 'seed.mjs'), 'export default async () => {};\n');
      expect(moduleCommand({ module: './seed.mjs' }, dir, 'seed').args).not.toContain('tsx');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a module with a named export', () => {
  test('without export: MIGRATION_FAILED naming the function to give, not an empty template', async () => {
    const error = await createTestDatabase({ worker: 'named', migrate: { module: `./${STEPS}/named.ts` } }).catch((e: unknown) => e);
    expect((error as FastTestDbError).code).toBe('MIGRATION_FAILED');
    expect((error as FastTestDbError).message).toContain('the module has no default export, and exports functions (migrate)');
    const db = await createTestDatabase({ worker: 'named', migrate: { module: `./${STEPS}/named.ts`, export: 'migrate' } });
    await db.destroy();
  });
});

describe("a command's PATH", () => {
  test("finds the project's own binaries by name, as npm run does", async () => {
    const { runMigrate } = await import('../../src/core/migrate-run.js');
    const connection = { host: '127.0.0.1', port: 5999, user: 'u', password: '', database: 'ftdb_tpl_x' };
    await runMigrate({
      migrate: 'tsx --version',
      url: 'postgres://u@127.0.0.1:5999/ftdb_tpl_x',
      ctx: { database: 'ftdb_tpl_x', server: {} as never, connection },
      timeoutMs: 30_000,
      envVars: [],
      env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
      cwd: ROOT,
    });
  });
});
