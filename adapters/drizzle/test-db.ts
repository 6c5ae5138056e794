/**
 * drizzleTestDb: a worker database cloned from a template that holds the Drizzle schema, and a
 * Drizzle instance bound to it. The template is built once per fingerprint, either with
 * drizzle-orm's migrator over the drizzle-kit migrations folder or, without one, from the DDL
 * drizzle-kit generates for the schema.
 */
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { createHash } from 'node:crypto';
import { createTestDatabase } from '../../src/index.js';
import { FastTestDbError } from '../../src/errors.js';
import { logger } from '../../src/log.js';
import type { Engine, MigrateFn, TestDatabase, TestDatabaseOptions } from '../../src/types.js';
import { DRIVER_ENGINE, DRIZZLE_MODULE, openDrizzle, type DrizzleDriver } from './drivers.js';
import { isKind } from './meta.js';
import { migrationsFingerprint, runMigrator, type MigratorConfig } from './migrations.js';
import { schemaDdl, type Casing } from './schema-ddl.js';

const log = logger('drizzle');

export interface DrizzleTestDbOptions<TSchema extends Record<string, unknown>, TDriver extends DrizzleDriver | undefined = undefined>
  extends TestDatabaseOptions {
  /** The schema module: `import * as schema from './schema'`. */
  schema: TSchema;
  /** drizzle-kit's output folder (with meta/_journal.json). Without it, the schema's generated DDL builds the template. */
  migrationsFolder?: string;
  migrationsTable?: string;
  /** PostgreSQL: schema of the migrations table (drizzle's default: "drizzle"). */
  migrationsSchema?: string;
  /** Default: 'pg' on PostgreSQL, 'mysql2' on MySQL/MariaDB. */
  driver?: TDriver;
  /** Same as drizzle()'s `casing` option; it also shapes the generated DDL. */
  casing?: Casing;
  /** Passed to drizzle(). */
  logger?: boolean | { logQuery(query: string, params: unknown[]): void };
  /** Pool size of the returned instance. Default 10. */
  poolSize?: number;
}

export type DrizzleDbFor<TDriver, TSchema extends Record<string, unknown>> = TDriver extends 'postgres-js'
  ? PostgresJsDatabase<TSchema>
  : TDriver extends 'mysql2'
    ? MySql2Database<TSchema>
    : NodePgDatabase<TSchema>;

export interface DrizzleTestDb<TDb> extends AsyncDisposable {
  /** Drizzle bound to this worker's database; `db.$client` is the driver's pool. */
  db: TDb;
  database: TestDatabase;
  driver: DrizzleDriver;
  /** Ends the pool. Call it before database.recreate()/destroy(). */
  close(): Promise<void>;
}

/** Engine of the schema's tables, when they say (a pgTable or a mysqlTable). */
function schemaEngine(schema: Record<string, unknown>): Engine | undefined {
  for (const value of Object.values(schema)) {
    if (isKind(value, 'PgTable')) return 'postgres';
    if (isKind(value, 'MySqlTable')) return 'mysql';
  }
  return undefined;
}

function resolveEngine(options: DrizzleTestDbOptions<any, any>): { engine: Engine; driver: DrizzleDriver } {
  const fromSchema = schemaEngine(options.schema);
  const fromDriver = options.driver ? DRIVER_ENGINE[options.driver as DrizzleDriver] : undefined;
  if (options.driver && !fromDriver) {
    throw new FastTestDbError('BAD_OPTION', `unknown drizzle driver ${JSON.stringify(options.driver)}`, "use driver: 'pg', 'postgres-js' or 'mysql2'");
  }
  const engine = options.engine ?? fromDriver ?? fromSchema ?? 'postgres';
  for (const [what, other] of [['driver', fromDriver], ['schema tables', fromSchema]] as const) {
    if (other && other !== engine) {
      throw new FastTestDbError('BAD_OPTION', `engine '${engine}' does not match the ${what}, which are for '${other}'`, `use engine: '${other}', or ${what === 'driver' ? `a ${engine} driver` : `${engine} tables`}`);
    }
  }
  return { engine, driver: (options.driver as DrizzleDriver | undefined) ?? (engine === 'mysql' ? 'mysql2' : 'pg') };
}

export async function drizzleTestDb<TSchema extends Record<string, unknown>, TDriver extends DrizzleDriver | undefined = undefined>(
  options: DrizzleTestDbOptions<TSchema, TDriver>,
): Promise<DrizzleTestDb<DrizzleDbFor<TDriver, TSchema>>> {
  const { schema, migrationsFolder, migrationsTable, migrationsSchema, driver: _d, casing, logger: drizzleLogger, poolSize, ...core } = options;
  if (!schema || typeof schema !== 'object') {
    throw new FastTestDbError('BAD_OPTION', 'drizzleTestDb needs `schema`, the module with your tables', "import * as schema from './schema' and pass { schema }");
  }
  const { engine, driver } = resolveEngine(options);
  const family = engine;
  const migrator: MigratorConfig | undefined = migrationsFolder ? { migrationsFolder, migrationsTable, migrationsSchema } : undefined;

  let ddl: string[] = [];
  let key: string;
  if (migrator) {
    key = `drizzle-migrations:${await migrationsFingerprint(migrator)}`;
  } else {
    ddl = await schemaDdl(schema, family, casing);
    key = `drizzle-ddl:${createHash('sha256').update(ddl.join('\n;\n')).digest('hex').slice(0, 16)}`;
  }

  const userMigrate = core.migrate;
  const migrate: MigrateFn = async (url, ctx) => {
    // One connection: the migrator and the DDL run in order, and nothing is left open on the template.
    const opened = await openDrizzle(driver, ctx.connection, { casing, max: 1 });
    try {
      if (migrator) {
        log('migrating %s from %s', ctx.database, migrator.migrationsFolder);
        await runMigrator(opened.db, DRIZZLE_MODULE[driver], migrator);
      } else {
        log('applying %d generated statements to %s', ddl.length, ctx.database);
        for (const statement of ddl) await opened.db.execute(statement);
      }
    } finally {
      await opened.close();
    }
    // A user's migrate (seed rows) runs after the schema, into the same template.
    if (userMigrate) await userMigrate(url, ctx);
  };

  const database = await createTestDatabase({ ...core, engine, migrate, cacheKey: [core.cacheKey, key].filter(Boolean).join('|') });
  let opened;
  try {
    opened = await openDrizzle(driver, database.connection, { schema, casing, logger: drizzleLogger, max: poolSize });
  } catch (e) {
    await database.destroy().catch(() => {});
    throw e;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await opened.close();
  };
  return {
    db: opened.db,
    database,
    driver,
    close,
    async [Symbol.asyncDispose]() {
      await close();
      await database.destroy();
    },
  };
}
