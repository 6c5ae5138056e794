/**
 * A Drizzle schema build that the server refuses says what the server said (message, code, SQL
 * state), not only Drizzle's `Failed query: ...`; MariaDB's known `serial AUTO_INCREMENT` refusal
 * says how to write the key instead.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { mysqlTable, serial, varchar } from 'drizzle-orm/mysql-core';
import { integer, pgTable } from 'drizzle-orm/pg-core';
import { drizzleTestDb } from '../../../adapters/drizzle/index.js';

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
const PREFIX = 'ftdbdzerr';
const only = process.env.FTDB_TEST_ENGINE;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of a fixture migrations folder whose one migration is `sql`. */
function folderWith(engine: 'postgres' | 'mysql', sql: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ftdb-dzerr-'));
  dirs.push(dir);
  cpSync(join(fixtures, engine === 'postgres' ? 'pg-migrations' : 'mysql-migrations'), dir, { recursive: true });
  writeFileSync(join(dir, '0000_accounts.sql'), sql);
  return dir;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable('the build should have failed'),
    (e: unknown) => e as Error & { code: string; fix?: string },
  );

describe.skipIf(only && only !== 'mysql')('drizzle schema builds refused by MariaDB', () => {
  const run = randomBytes(4).toString('hex');
  it('a migration with serial AUTO_INCREMENT shows the server error and the fix', async () => {
    const folder = folderWith(
      'mysql',
      `CREATE TABLE \`posts_${run}\` (\n\t\`id\` serial AUTO_INCREMENT NOT NULL,\n\tCONSTRAINT \`posts_id\` PRIMARY KEY(\`id\`)\n);`,
    );
    const e = await failure(drizzleTestDb({ schema: {}, engine: 'mysql', migrationsFolder: folder, worker: 'serial', prefix: PREFIX }));
    expect(e.code).toBe('MIGRATION_FAILED');
    expect(e.message).toContain('Failed query: CREATE TABLE');
    // The server's own words, code and SQL state, which Drizzle's wrapper leaves out of its message.
    expect(e.message).toMatch(
      /driver said: .*You have an error in your SQL syntax.*AUTO_INCREMENT.*\(code ER_PARSE_ERROR, SQL state 42000\)/s,
    );
    expect(e.fix).toMatch(
      /drizzle-kit writes serial\(\) as `serial AUTO_INCREMENT`, which MariaDB rejects: declare the key as int\('id'\)\.autoincrement\(\)/,
    );
  });
  it('a schema with serial() (no migrations folder) says the same', async () => {
    const schema = { posts: mysqlTable(`posts_s_${run}`, { id: serial('id').primaryKey(), title: varchar('title', { length: 20 }) }) };
    const e = await failure(drizzleTestDb({ schema, engine: 'mysql', worker: 'serial-ddl', prefix: PREFIX }));
    expect(e.code).toBe('MIGRATION_FAILED');
    expect(e.message).toMatch(/driver said: .*You have an error in your SQL syntax.*\(code ER_PARSE_ERROR, SQL state 42000\)/s);
    expect(e.fix).toContain("int('id').autoincrement().primaryKey()");
  });
});

describe.skipIf(only && only !== 'postgres')('drizzle schema builds refused by PostgreSQL', () => {
  it('a failing migration keeps the server message and SQL state, with the general fix', async () => {
    const folder = folderWith('postgres', 'CREATE TABLE "accounts" ("id" integer REFERENCES "absent_table"("id"));');
    const e = await failure(
      drizzleTestDb({
        schema: { t: pgTable('accounts', { id: integer('id') }) },
        engine: 'postgres',
        migrationsFolder: folder,
        worker: 'pgerr',
        prefix: PREFIX,
      }),
    );
    expect(e.code).toBe('MIGRATION_FAILED');
    expect(e.message).toMatch(/driver said: relation "absent_table" does not exist \(SQL state 42P01\)/);
    expect(e.fix).toMatch(/^fix the failing migration/);
  });
});
