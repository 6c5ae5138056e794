/**
 * What the Drizzle schema contributes to a template: how to build it (drizzle-orm's migrator over
 * the drizzle-kit folder, or the DDL drizzle-kit generates for the schema) and the fingerprint
 * that says when to rebuild. drizzleTestDb uses it directly; runner integrations take it as
 * `adapter: () => drizzleTemplate({ ... })`.
 */
import { createHash } from 'node:crypto';
import {
  FastTestDbError,
  logger,
  messageOf,
  noteInstalled,
  type EngineName,
  type Migrate,
  type MigrateFn,
  type TemplateSource,
} from '../../src/adapter-kit.js';
import { contextOf } from '../shared/migrate-context.js';
import { defaultDriver, DRIVERS, openDrizzle, schemaEngine, type Casing, type DrizzleDriver } from './driver.js';
import { drizzleMigrationFix, migrationsFingerprint, runMigrator, type MigratorConfig } from './migrations.js';
import { schemaDdl } from './schema-ddl.js';

const log = logger('drizzle');

export interface DrizzleTemplateOptions<TDriver extends DrizzleDriver | undefined = DrizzleDriver | undefined> {
  /** The schema module: `import * as schema from './schema'`. */
  schema: Record<string, unknown>;
  /** drizzle-kit's output folder (with meta/_journal.json). Without it, the schema's generated DDL builds the template. */
  migrationsFolder?: string;
  migrationsTable?: string;
  /** PostgreSQL: schema of the migrations table (drizzle's default: "drizzle"). */
  migrationsSchema?: string;
  /** Default: 'pg' on PostgreSQL, 'mysql2' on MySQL/MariaDB. Only opens the template connection here. */
  driver?: TDriver;
  /** Same as drizzle()'s `casing` option; it also shapes the generated DDL. */
  casing?: Casing;
  /** Default: from the driver, else from the schema's tables (pgTable / mysqlTable), else 'postgres'. */
  engine?: EngineName;
  /**
   * Run after the migrations (or the generated DDL), in the same build: a seed function
   * `(url, ctx)`, a command (`'npm run db:seed'`) or a seed file (`{ module: './src/db/seed.ts' }`),
   * as the core's `seed` option (docs/templates.md).
   */
  seed?: Migrate;
}

export function resolveEngine(options: Pick<DrizzleTemplateOptions, 'schema' | 'driver' | 'engine'>): {
  engine: EngineName;
  driver: DrizzleDriver;
} {
  if (!options.schema || typeof options.schema !== 'object') {
    throw new FastTestDbError(
      'BAD_OPTION',
      'the Drizzle adapter needs `schema`, the module with your tables',
      "import * as schema from './schema' and pass { schema }",
    );
  }
  const fromDriver = options.driver && Object.hasOwn(DRIVERS, options.driver) ? DRIVERS[options.driver].engine : undefined;
  if (options.driver && !fromDriver) {
    throw new FastTestDbError(
      'BAD_OPTION',
      `unknown drizzle driver ${JSON.stringify(options.driver)}`,
      "use driver: 'pg', 'postgres-js' or 'mysql2'",
    );
  }
  const fromSchema = schemaEngine(options.schema);
  const engine = options.engine ?? fromDriver ?? fromSchema ?? 'postgres';
  for (const [what, otherEngine] of [
    ['driver', fromDriver],
    ['schema tables', fromSchema],
  ] as const) {
    if (otherEngine && otherEngine !== engine) {
      throw new FastTestDbError(
        'BAD_OPTION',
        `engine '${engine}' does not match the ${what}, which are for '${otherEngine}'`,
        `use engine: '${otherEngine}', or ${what === 'driver' ? `a ${engine} driver` : `${engine} tables`}`,
      );
    }
  }
  return { engine, driver: options.driver ?? defaultDriver(engine) };
}

/** The template half of drizzleTestDb, for runner integrations: `adapter: () => drizzleTemplate({ schema })`. */
export async function drizzleTemplate(options: DrizzleTemplateOptions): Promise<TemplateSource & { migrate: MigrateFn }> {
  noteInstalled('drizzle-orm');
  const { engine, driver } = resolveEngine(options);
  const { schema, migrationsFolder, migrationsTable, migrationsSchema, casing } = options;
  const migrator: MigratorConfig | undefined = migrationsFolder ? { migrationsFolder, migrationsTable, migrationsSchema } : undefined;

  let ddl: string[] = [];
  let cacheKey: string;
  if (migrator) {
    cacheKey = `drizzle-migrations:${await migrationsFingerprint(migrator)}`;
  } else {
    ddl = await schemaDdl(schema, engine, casing);
    cacheKey = `drizzle-ddl:${createHash('sha256').update(ddl.join('\n;\n')).digest('hex').slice(0, 16)}`;
  }

  const migrate: MigrateFn = async (_url, given) => {
    const ctx = contextOf(given, 'drizzleTemplate');
    // One connection: statements run in order, and nothing stays open on the template.
    const opened = await openDrizzle(driver, ctx.connection, { casing, max: 1 });
    try {
      if (migrator) {
        log('migrating %s from %s', ctx.database, migrator.migrationsFolder);
        await runMigrator(opened.db, DRIVERS[driver].module, migrator);
      } else {
        log('applying %d generated statements to %s', ddl.length, ctx.database);
        for (const statement of ddl) {
          await opened.db.execute(statement).catch((e: unknown) => {
            throw new FastTestDbError(
              'MIGRATION_FAILED',
              `a statement drizzle-kit generated for the schema failed on ${ctx.database}: ${messageOf(e)}`,
              drizzleMigrationFix(e, 'check the schema module; the template stays unbuilt and the next run retries'),
              { cause: e },
            );
          });
        }
      }
    } finally {
      await opened.close();
    }
  };
  return { migrate, seed: options.seed, cacheKey, engine };
}
