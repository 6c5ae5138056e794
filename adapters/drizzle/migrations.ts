/**
 * The drizzle-kit migrations folder: its fingerprint (what drizzle-orm's migrator reads: journal
 * entries and the hash of each SQL file) and applying it with drizzle-orm's own migrator, so
 * that `__drizzle_migrations` holds exactly what drizzle-kit and the app's migrate() expect.
 */
import { createHash } from 'node:crypto';
import { FastTestDbError, driverSaid, loadPeer, messageOf } from '../../src/adapter-kit.js';

export interface MigratorConfig {
  migrationsFolder: string;
  migrationsTable?: string;
  /** PostgreSQL only. */
  migrationsSchema?: string;
}

interface MigrationMeta {
  sql: string[];
  bps: boolean;
  folderMillis: number;
  hash: string;
}

export async function migrationsFingerprint(config: MigratorConfig): Promise<string> {
  const { readMigrationFiles } = await loadPeer<any>('drizzle-orm/migrator', 'Reading a drizzle-kit migrations folder');
  let files: MigrationMeta[];
  try {
    files = readMigrationFiles(config);
  } catch (e) {
    throw new FastTestDbError(
      'BAD_OPTION',
      `cannot read the drizzle-kit migrations folder ${config.migrationsFolder}: ${messageOf(e)}`,
      'point migrationsFolder at the `out` folder of drizzle.config (the one holding meta/_journal.json), relative to the working directory or absolute',
      { cause: e },
    );
  }
  const digest = createHash('sha256');
  digest.update(JSON.stringify([config.migrationsTable ?? '', config.migrationsSchema ?? '']));
  for (const f of files) digest.update(JSON.stringify([f.folderMillis, f.bps, f.hash]));
  return digest.digest('hex').slice(0, 16);
}

/**
 * drizzle-kit writes mysql-core's `serial()` as `serial AUTO_INCREMENT`. MySQL accepts that;
 * MariaDB, where SERIAL already means AUTO_INCREMENT, rejects it as a syntax error.
 */
const SERIAL_AUTO_INCREMENT = /\bserial\s+AUTO_INCREMENT\b/i;

/** Every message and statement text of a cause chain (Drizzle puts the statement in its wrapper's message). */
function chainText(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, i = 0; c && typeof c === 'object' && i < 10; c = (c as { cause?: unknown }).cause, i++) {
    const { sql, query } = c as { sql?: unknown; query?: unknown };
    parts.push(messageOf(c), typeof sql === 'string' ? sql : '', typeof query === 'string' ? query : '');
  }
  return parts.join('\n');
}

/** What to do about a failed Drizzle schema build: the general advice, or the known MariaDB `serial` trap. */
export function drizzleMigrationFix(e: unknown, general: string): string {
  if (driverSaid(e)?.code === 'ER_PARSE_ERROR' && SERIAL_AUTO_INCREMENT.test(chainText(e))) {
    return (
      "drizzle-kit writes serial() as `serial AUTO_INCREMENT`, which MariaDB rejects: declare the key as int('id').autoincrement().primaryKey() " +
      "(or bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey()) and run drizzle-kit generate again"
    );
  }
  return general;
}

/** Runs drizzle-orm's migrator of `driver` against an open Drizzle instance. */
export async function runMigrator(db: unknown, driverModule: string, config: MigratorConfig): Promise<void> {
  const { migrate } = await loadPeer<any>(`${driverModule}/migrator`, 'Applying drizzle-kit migrations');
  try {
    await migrate(db, config);
  } catch (e) {
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `drizzle migrations in ${config.migrationsFolder} failed: ${messageOf(e)}`,
      drizzleMigrationFix(
        e,
        'fix the failing migration (run drizzle-kit generate again after changing the schema); the template stays unbuilt and the next run retries',
      ),
      { cause: e },
    );
  }
}
