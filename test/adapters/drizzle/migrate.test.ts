/**
 * drizzleTestDb applies a drizzle-kit migrations folder once per fingerprint: racing worker
 * processes share one template build, and editing or adding a migration builds a new one.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleTestDb } from '../../../adapters/drizzle/index.js';
import { createTestDatabase } from '../../../src/index.js';
import { int, mysqlTable, varchar } from 'drizzle-orm/mysql-core';
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import * as mysqlSchema from './fixtures/schema-mysql.js';
import * as pgSchema from './fixtures/schema-pg.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const PREFIX = 'ftdbdzmig';
const only = process.env.FTDB_TEST_ENGINE;

interface Report {
  worker: string;
  database: string;
  template: { name: string; fingerprint: string; built: boolean };
  hashes: string[];
}

function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...vars };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
  return env;
}

async function worker(engine: string, folder: string, name: string): Promise<Report> {
  const { stdout } = await promisify(execFile)(join(root, 'node_modules/.bin/tsx'), [join(fixtures, 'migrate-worker.ts')], {
    cwd: root,
    env: childEnv({ FTDB_DZ_ENGINE: engine, FTDB_DZ_FOLDER: folder, FTDB_DZ_WORKER: name, FTDB_DZ_PREFIX: PREFIX }),
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Report;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

for (const engine of (['postgres', 'mysql'] as const).filter((e) => !only || e === only)) {
  describe(`drizzle migrations on ${engine}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-drizzle-'));
    const folder = join(dir, 'drizzle');
    cpSync(join(fixtures, engine === 'postgres' ? 'pg-migrations' : 'mysql-migrations'), folder, { recursive: true });
    const first = join(folder, '0000_accounts.sql');
    // A fresh fingerprint for this run, so that a template left by an earlier run cannot answer.
    appendFileSync(first, `\n-- run ${randomBytes(6).toString('hex')}\n`);
    const schema = engine === 'postgres' ? pgSchema : mysqlSchema;
    // This process joins the server first, as a runner's global setup would: an owned server
    // stops when its last client exits, and the workers below come and go.
    let holder: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    beforeAll(async () => {
      holder = await createTestDatabase({ engine, prefix: PREFIX, worker: 'holder', cacheKey: 'holder' });
    });
    afterAll(async () => {
      await holder?.destroy();
      rmSync(dir, { recursive: true, force: true });
    });

    it('builds the template once while three worker processes race for it', async () => {
      const reports = await Promise.all(['race1', 'race2', 'race3'].map((w) => worker(engine, folder, w)));
      expect(reports.filter((r) => r.template.built)).toHaveLength(1);
      expect(new Set(reports.map((r) => r.template.name)).size).toBe(1);
      expect(new Set(reports.map((r) => r.database)).size).toBe(3);
      // Every clone carries drizzle's own bookkeeping, so the app's migrate() would find nothing to do.
      for (const r of reports) expect(r.hashes).toEqual([sha256(readFileSync(first, 'utf8'))]);

      const again = await worker(engine, folder, 'race1');
      expect(again.template).toEqual({ ...reports[0]!.template, built: false });
    }, 120_000);

    it('rebuilds when a migration is edited or added, and the app migrator then has nothing to do', async () => {
      const before = await drizzleTestDb({ schema, engine, migrationsFolder: folder, worker: 'edit', prefix: PREFIX } as any);
      await before[Symbol.asyncDispose]();
      expect(before.database.template.built).toBe(false);

      appendFileSync(first, `\n-- edited\n`);
      const edited = await drizzleTestDb({ schema, engine, migrationsFolder: folder, worker: 'edit', prefix: PREFIX } as any);
      await edited[Symbol.asyncDispose]();
      expect(edited.database.template.built).toBe(true);
      expect(edited.database.template.fingerprint).not.toBe(before.database.template.fingerprint);

      // A second migration, written the way drizzle-kit writes it.
      const journalPath = join(folder, 'meta/_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
      const last = journal.entries[journal.entries.length - 1];
      journal.entries.push({ ...last, idx: 1, when: last.when + 1000, tag: '0001_note' });
      writeFileSync(journalPath, JSON.stringify(journal, null, 2));
      const q = engine === 'postgres' ? '"' : '`';
      writeFileSync(
        join(folder, '0001_note.sql'),
        `ALTER TABLE ${q}accounts${q} ADD ${engine === 'postgres' ? 'COLUMN ' : ''}${q}note${q} text;`,
      );

      const added = await drizzleTestDb({ schema, engine, migrationsFolder: folder, worker: 'edit', prefix: PREFIX } as any);
      try {
        expect(added.database.template.built).toBe(true);
        const db = added.db as any;
        await db.execute(`insert into ${q}accounts${q} (${q}owner${q}, ${q}note${q}) values ('a', 'has a note')`);
        const res = await db.execute(`select ${q}note${q} as note from ${q}accounts${q}`);
        expect((engine === 'postgres' ? res.rows : res[0])[0].note).toBe('has a note');
        // drizzle-orm's migrator, run by the app against the clone, sees both migrations applied.
        const { migrate } = await import(engine === 'postgres' ? 'drizzle-orm/node-postgres/migrator' : 'drizzle-orm/mysql2/migrator');
        await migrate(db, { migrationsFolder: folder });
        const table = engine === 'postgres' ? '"drizzle"."__drizzle_migrations"' : '`__drizzle_migrations`';
        const count = await db.execute(`select count(*) as n from ${table}`);
        expect(Number((engine === 'postgres' ? count.rows : count[0])[0].n)).toBe(2);
      } finally {
        await added[Symbol.asyncDispose]();
      }
    }, 120_000);
  });
}

for (const engine of (['postgres', 'mysql'] as const).filter((e) => !only || e === only)) {
  describe(`drizzle schema without migrations on ${engine}`, () => {
    // A table name of this run: a fresh fingerprint that no earlier run's template can answer.
    const name = `notes_${randomBytes(4).toString('hex')}`;
    const v1 =
      engine === 'postgres'
        ? { notes: pgTable(name, { id: integer('id').primaryKey(), body: text('body') }) }
        : { notes: mysqlTable(name, { id: int('id').primaryKey(), body: varchar('body', { length: 50 }) }) };
    const v2 =
      engine === 'postgres'
        ? { notes: pgTable(name, { id: integer('id').primaryKey(), body: text('body'), tag: text('tag') }) }
        : {
            notes: mysqlTable(name, {
              id: int('id').primaryKey(),
              body: varchar('body', { length: 50 }),
              tag: varchar('tag', { length: 10 }),
            }),
          };

    it('builds from the DDL drizzle-kit generates, once, and again when the schema changes', async () => {
      const open = (schema: Record<string, unknown>) => drizzleTestDb({ schema, engine, worker: 'ddl', prefix: PREFIX } as any);
      const first = await open(v1);
      await first[Symbol.asyncDispose]();
      const second = await open(v1);
      await second[Symbol.asyncDispose]();
      expect(first.database.template.built).toBe(true);
      expect(second.database.template).toEqual({ ...first.database.template, built: false });

      const changed = await open(v2);
      try {
        expect(changed.database.template.built).toBe(true);
        expect(changed.database.template.fingerprint).not.toBe(first.database.template.fingerprint);
        const db = changed.db as any;
        await db.insert(v2.notes).values({ id: 1, body: 'b', tag: 't' });
        expect(await db.select().from(v2.notes)).toEqual([{ id: 1, body: 'b', tag: 't' }]);
      } finally {
        await changed[Symbol.asyncDispose]();
      }
    }, 120_000);
  });
}
