/**
 * Each adapter's schema and a seed, in one template build on the suite's embedded PostgreSQL: TypeORM
 * synchronize then its seed migrations, Drizzle migrations then a seed function, Prisma migrations
 * then the project's seed command (what `prisma db seed` runs).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { EntitySchema, type DataSourceOptions, type MigrationInterface, type QueryRunner } from 'typeorm';
import { typeormTemplate } from '../../adapters/typeorm/index.js';
import { drizzleTemplate } from '../../adapters/drizzle/index.js';
import { prismaTemplate } from '../../adapters/prisma/index.js';
import { prismaSeedCommand } from '../../adapters/prisma/seed.js';
import { createTestDatabase, FastTestDbError, type TemplateSource } from '../../src/index.js';
import * as pgSchema from './drizzle/fixtures/schema-pg.js';
import { sql } from '../core/helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function built(source: TemplateSource, worker: string) {
  return createTestDatabase({ ...source, worker, prefix: 'ftdbseed' });
}

describe('typeorm', () => {
  const Color = new EntitySchema<{ name: string }>({ name: 'color', columns: { name: { type: String, primary: true } } });
  class SeedColors1700000000000 implements MigrationInterface {
    name = 'SeedColors1700000000000';
    async up(q: QueryRunner) {
      await q.query("INSERT INTO color (name) VALUES ('red'), ('blue')");
    }
    async down() {}
  }
  const options = { type: 'postgres', entities: [Color], migrations: [SeedColors1700000000000] } as DataSourceOptions;

  test('synchronize, then the seed migrations on top: the tables from the entities, the rows from the migrations', async () => {
    const db = await built(await typeormTemplate(options, { schema: 'synchronize-then-migrations' }), 'tsync');
    try {
      expect((await sql(db.url, 'SELECT name FROM color ORDER BY name')).map((r) => r.name)).toEqual(['blue', 'red']);
      expect((await sql(db.url, 'SELECT name FROM migrations')).map((r) => r.name)).toEqual(['SeedColors1700000000000']);
    } finally {
      await db.destroy();
    }
  });

  test('a seed option runs after the schema', async () => {
    const source = await typeormTemplate(options, {
      schema: 'synchronize',
      seed: (url) => sql(url, "INSERT INTO color VALUES ('green')").then(() => undefined),
    });
    const db = await built(source, 'tseed');
    try {
      expect((await sql(db.url, 'SELECT name FROM color')).map((r) => r.name)).toEqual(['green']);
    } finally {
      await db.destroy();
    }
  });
});

describe('drizzle', () => {
  test('the migrations folder, then a seed function', async () => {
    const source = await drizzleTemplate({
      schema: pgSchema,
      migrationsFolder: join(import.meta.dirname, 'drizzle/fixtures/pg-migrations'),
      seed: async (url) => void (await sql(url, "INSERT INTO accounts (owner, cents) VALUES ('ada', 100)")),
    });
    const db = await built(source, 'dseed');
    try {
      expect(await sql(db.url, 'SELECT owner, cents FROM accounts')).toEqual([{ owner: 'ada', cents: 100 }]);
    } finally {
      await db.destroy();
    }
  });
});

describe('prisma', () => {
  test("the migrations, then the project's seed command", async () => {
    const source = await prismaTemplate({
      schema: 'test/adapters/prisma/zoo/postgres/schema.prisma',
      seed: 'node test/adapters/fixtures/seed-tags.cjs',
    });
    const db = await built(source, 'pseed');
    try {
      expect(await sql(db.url, 'SELECT name, color FROM "Tag"')).toEqual([{ name: 'seeded', color: 'red' }]);
    } finally {
      await db.destroy();
    }
  });

  test('seed: true finds the command prisma db seed runs: prisma.config.ts first, then package.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-prisma-seed-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ prisma: { seed: 'ts-node prisma/seed.ts' } }));
    expect(prismaSeedCommand(dir)).toEqual({ command: 'ts-node prisma/seed.ts', from: 'package.json "prisma.seed"' });
    writeFileSync(
      join(dir, 'prisma.config.ts'),
      "import { defineConfig } from 'prisma/config';\nexport default defineConfig({ migrations: { path: 'prisma/migrations', seed: 'tsx prisma/seed.ts' } });\n",
    );
    expect(prismaSeedCommand(dir)).toEqual({ command: 'tsx prisma/seed.ts', from: 'prisma.config.ts' });
  });

  test('seed: true in a project without a Prisma seed: BAD_OPTION saying where it looked', async () => {
    const error = await prismaTemplate({ schema: 'test/adapters/prisma/zoo/postgres/schema.prisma', seed: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastTestDbError);
    expect((error as FastTestDbError).message).toMatch(/prisma\.config\.ts migrations\.seed, or package\.json "prisma\.seed"/);
  });
});

describe('a wrapper that drops ctx', () => {
  test("the adapter's migrate says it was called without ctx, and how to pass it on", async () => {
    const source = await prismaTemplate({ schema: 'test/adapters/prisma/zoo/postgres/schema.prisma' });
    const inner = source.migrate as (url: string) => Promise<void>;
    const error = await createTestDatabase({
      cacheKey: source.cacheKey,
      worker: 'noctx',
      prefix: 'ftdbseed',
      migrate: async (url) => inner(url),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastTestDbError);
    expect((error as FastTestDbError).code).toBe('BAD_OPTION');
    expect((error as FastTestDbError).message).toMatch(/prismaTemplate's migrate was called without its second argument/);
    expect((error as FastTestDbError).fix).toMatch(/\(url, ctx\) => source\.migrate\(url, ctx\)/);
  });
});
