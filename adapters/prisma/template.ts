/**
 * The template recipe of a Prisma project: its migrations applied as `migrate deploy` applies
 * them (or the Prisma CLI, for migrate deploy and db push), and the fingerprint of the schema,
 * the migrations and how they are applied.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FastTestDbError, noteInstalled, type Migrate, type MigrateFn, type TemplateSource } from '../../src/adapter-kit.js';
import { prismaSeedCommand } from './seed.js';
import { contextOf } from '../shared/migrate-context.js';
import { runPrismaCli } from './cli.js';
import { openScriptExecutor } from './driver.js';
import { applyMigrations, engineOfProvider, lockedProvider, readMigrations } from './migrations.js';
import { parsePrismaSchema, readSchemaText } from './schema.js';

/**
 * How the template gets its schema:
 * - 'sql' (default): apply prisma/migrations/<name>/migration.sql and record them in
 *   _prisma_migrations as `migrate deploy` does. Needs no schema engine.
 * - 'migrate-deploy': run `prisma migrate deploy` (needs the schema engine).
 * - 'db-push': run `prisma db push`, for projects without migrations (needs the schema engine).
 */
export type PrismaMigrateWith = 'sql' | 'migrate-deploy' | 'db-push';

export interface PrismaTemplateOptions {
  /** Schema file or folder. Default: prisma/schema.prisma. */
  schema?: string;
  /** Migrations folder. Default: `migrations` next to the schema. */
  migrations?: string;
  migrateWith?: PrismaMigrateWith;
  /** Added to the fingerprint, to tell apart templates the files alone would not. */
  cacheKey?: string;
  /**
   * Run after the migrations, in the same build. `true`: the project's own seed, the command
   * `prisma db seed` runs (prisma.config.ts `migrations.seed`, or package.json `prisma.seed`);
   * or a function, a command or a module, as the core's `seed` option (docs/templates.md).
   */
  seed?: Migrate | true;
}

/**
 * The template half of prismaTestDb, for runner integrations (fast-test-db/vitest, /jest) whose
 * global setup builds the template: `adapter: () => prismaTemplate({ schema })`.
 */
export async function prismaTemplate(options: PrismaTemplateOptions = {}): Promise<TemplateSource> {
  noteInstalled('@prisma/client');
  const { migrateWith = 'sql' } = options;
  const schemaPath = resolve(options.schema ?? 'prisma/schema.prisma');
  const schemaText = readSchemaText(schemaPath);
  const parsed = parsePrismaSchema(schemaText);
  const engine = engineOfProvider(parsed.provider);
  const migrationsDir = resolve(
    options.migrations ?? join(statSync(schemaPath).isDirectory() ? schemaPath : dirname(schemaPath), 'migrations'),
  );
  const migrations = readMigrations(migrationsDir);
  if (migrateWith === 'sql') {
    if (migrations.length === 0) {
      throw new FastTestDbError(
        'BAD_OPTION',
        `no migrations in ${migrationsDir}`,
        'pass migrations: the folder holding <name>/migration.sql, or use migrateWith: "db-push" (needs the Prisma schema engine)',
      );
    }
    const locked = lockedProvider(migrationsDir);
    if (locked && locked !== parsed.provider) {
      throw new FastTestDbError(
        'BAD_OPTION',
        `migration_lock.toml says provider "${locked}" but the schema says "${parsed.provider}"`,
        'point schema and migrations at the same project',
      );
    }
  }

  // The template depends on the migrations, the schema and how they are applied.
  const fp = createHash('sha256').update(
    JSON.stringify({ migrateWith, schemaText, migrations: migrations.map((m) => [m.name, m.checksum]) }),
  );
  const cacheKey = `prisma:${fp.digest('hex').slice(0, 16)}${options.cacheKey ? `:${options.cacheKey}` : ''}`;

  const migrate: MigrateFn = async (url, ctx) => {
    if (migrateWith === 'migrate-deploy' || migrateWith === 'db-push') {
      await runPrismaCli(migrateWith, { schema: schemaPath, migrations: migrationsDir, url });
      return;
    }
    const executor = await openScriptExecutor(contextOf(ctx, 'prismaTemplate').connection, engine);
    try {
      await applyMigrations(executor, migrations);
    } finally {
      await executor.close();
    }
  };
  const seed = options.seed === true ? prismaSeedCommand().command : options.seed;
  return { migrate, seed, cacheKey, engine };
}
