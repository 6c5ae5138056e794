/**
 * Applies committed `prisma/migrations/<name>/migration.sql` files the way `prisma migrate deploy`
 * does, without the schema engine: in directory-name order, each script as one multi-statement
 * command, with the same `_prisma_migrations` table and row life cycle (started -> one step ->
 * finished), so that a later `migrate deploy` or `migrate status` sees them as applied.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FastTestDbError, messageOf, type SqlFamily } from '../../src/adapter-kit.js';
import { engineFor } from '../../src/adapter-kit.js';

export interface PrismaMigration {
  name: string;
  script: string;
  /** sha256 of the file, lowercase hex: what Prisma stores and compares. */
  checksum: string;
}

/** What the migrations run on: one connection to the target database. */
export interface ScriptExecutor {
  /** The engine it speaks to (the field is older than the engines folder). */
  family: SqlFamily;
  /** Runs a multi-statement script. */
  script(sql: string): Promise<void>;
  /** Runs one parameterized statement; returns its rows. */
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

export const MIGRATIONS_TABLE = '_prisma_migrations';

/**
 * The datasource providers we support: the names a schema may give each, the engine it runs on,
 * and the DDL of the schema engine's `create_migrations_table` there.
 */
const PROVIDERS: ReadonlyArray<{ names: readonly string[]; engine: SqlFamily; migrationsTableDdl: string }> = [
  {
    names: ['postgresql', 'postgres'],
    engine: 'postgres',
    migrationsTableDdl: `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`,
  },
  {
    names: ['mysql'],
    engine: 'mysql',
    migrationsTableDdl: `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             DATETIME(3),
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          DATETIME(3),
    started_at              DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    applied_steps_count     INTEGER UNSIGNED NOT NULL DEFAULT 0
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`,
  },
];

/** The DDL of the schema engine's `create_migrations_table`, by the engine it runs on. */
export const MIGRATIONS_TABLE_DDL = Object.fromEntries(PROVIDERS.map((p) => [p.engine, p.migrationsTableDdl])) as Record<SqlFamily, string>;

/** The engine a schema's datasource provider runs on. */
export function engineOfProvider(provider: string): SqlFamily {
  const found = PROVIDERS.find((p) => p.names.includes(provider));
  if (found) return found.engine;
  throw new FastTestDbError(
    'UNSUPPORTED',
    `datasource provider "${provider}" is not supported by fast-test-db`,
    'use provider "postgresql" or "mysql" (MariaDB is "mysql")',
  );
}

/** The migrations in `dir`, in the order Prisma applies them (byte order of directory names). */
export function readMigrations(dir: string): PrismaMigration[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory())
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.map((name) => {
    const file = join(dir, name, 'migration.sql');
    if (!existsSync(file)) {
      throw new FastTestDbError(
        'MIGRATION_FAILED',
        `migration directory ${join(dir, name)} has no migration.sql`,
        'remove the directory or add its migration.sql (prisma migrate deploy fails on it too)',
      );
    }
    const bytes = readFileSync(file);
    return { name, script: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') };
  });
}

/** Provider recorded in migration_lock.toml, if any. */
export function lockedProvider(dir: string): string | undefined {
  const file = join(dir, 'migration_lock.toml');
  if (!existsSync(file)) return undefined;
  return /^\s*provider\s*=\s*"([^"]+)"/m.exec(readFileSync(file, 'utf8'))?.[1];
}

/** Timestamps as the schema engine writes them: UTC; DATETIME(3) on MySQL takes no zone. */
function now(family: SqlFamily): Date | string {
  const d = new Date();
  return engineFor(family).inserts.zonedTimestamps ? d : d.toISOString().replace('T', ' ').replace('Z', '');
}

async function tableExists(run: ScriptExecutor): Promise<boolean> {
  return (await run.query(engineFor(run.family).inserts.tableExistsSql, [MIGRATIONS_TABLE])).length > 0;
}

/**
 * Applies every migration not yet recorded as finished. Returns the names it applied.
 * A failing script leaves its row with `logs` set and `finished_at` NULL, exactly the state
 * `migrate deploy` leaves (and `migrate resolve` expects), and throws MIGRATION_FAILED.
 */
export async function applyMigrations(run: ScriptExecutor, migrations: PrismaMigration[]): Promise<string[]> {
  const p = engineFor(run.family).inserts.param;
  if (!(await tableExists(run))) await run.script(MIGRATIONS_TABLE_DDL[run.family]);
  const done = new Set(
    (await run.query(`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)).map((r) =>
      String(r.migration_name),
    ),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    const id = crypto.randomUUID();
    await run.query(
      `INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`,
      [id, m.checksum, now(run.family), m.name],
    );
    try {
      await run.script(m.script);
    } catch (e) {
      const logs = `Migration name: ${m.name}\n\nDatabase error:\n${messageOf(e)}`;
      await run.query(`UPDATE _prisma_migrations SET logs = ${p(1)} WHERE id = ${p(2)}`, [logs, id]).catch(() => undefined);
      throw new FastTestDbError(
        'MIGRATION_FAILED',
        `Prisma migration ${m.name} failed: ${messageOf(e)}`,
        `fix prisma/migrations/${m.name}/migration.sql; the template is rebuilt from scratch on the next run`,
        { cause: e },
      );
    }
    await run.query(`UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1 WHERE id = ${p(1)}`, [id]);
    await run.query(`UPDATE _prisma_migrations SET finished_at = ${p(1)} WHERE id = ${p(2)}`, [now(run.family), id]);
    applied.push(m.name);
  }
  return applied;
}
