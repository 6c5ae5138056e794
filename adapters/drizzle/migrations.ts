/**
 * The drizzle-kit migrations folder: its fingerprint (what drizzle-orm's migrator reads: journal
 * entries and the hash of each SQL file) and applying it with drizzle-orm's own migrator, so
 * that `__drizzle_migrations` holds exactly what drizzle-kit and the app's migrate() expect.
 */
import { createHash } from 'node:crypto';
import { FastTestDbError, loadPeer, messageOf } from '../../src/adapter-kit.js';

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

/** Runs drizzle-orm's migrator of `driver` against an open Drizzle instance. */
export async function runMigrator(db: unknown, driverModule: string, config: MigratorConfig): Promise<void> {
  const { migrate } = await loadPeer<any>(`${driverModule}/migrator`, 'Applying drizzle-kit migrations');
  try {
    await migrate(db, config);
  } catch (e) {
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `drizzle migrations in ${config.migrationsFolder} failed: ${messageOf((e as { cause?: unknown }).cause ?? e)}`,
      'fix the failing migration (run drizzle-kit generate again after changing the schema); the template stays unbuilt and the next run retries',
      { cause: e },
    );
  }
}
