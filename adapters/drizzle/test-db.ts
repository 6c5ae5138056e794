/**
 * drizzleTestDb: a worker database cloned from a template that holds the Drizzle schema, and a
 * Drizzle instance bound to it. The template is built once per fingerprint (see template.ts).
 */
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import {
  beginEntry,
  openEntry,
  withOptions,
  type PoolEvents,
  ormHandle,
  type MigrateFn,
  type TestDatabase,
  type TestDatabaseOptions,
} from '../../src/adapter-kit.js';
import { driverConnection } from '../shared/connection.js';
import { openDrizzle, type DrizzleDriver } from './driver.js';
import { drizzleTemplate, resolveEngine, type DrizzleTemplateOptions } from './template.js';

export interface DrizzleTestDbOptions<TSchema extends Record<string, unknown>, TDriver extends DrizzleDriver | undefined = undefined>
  extends TestDatabaseOptions,
    Omit<DrizzleTemplateOptions<TDriver>, 'schema'> {
  /** The schema module: `import * as schema from './schema'`. */
  schema: TSchema;
  /** Runs after the schema is built, into the same template: seed rows every clone starts with. */
  migrate?: MigrateFn;
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
  /** This worker's test database: reset(), recreate(), destroy(), url, connection. */
  database: TestDatabase;
  /** Ends the pool and closes the database's own connection; the database stays. Call it before database.recreate() or destroy(). */
  close(): Promise<void>;
}

export async function drizzleTestDb<TSchema extends Record<string, unknown>, TDriver extends DrizzleDriver | undefined = undefined>(
  options: DrizzleTestDbOptions<TSchema, TDriver>,
): Promise<DrizzleTestDb<DrizzleDbFor<TDriver, TSchema>>> {
  const {
    schema,
    migrationsFolder,
    migrationsTable,
    migrationsSchema,
    driver: chosen,
    casing,
    logger: drizzleLogger,
    poolSize,
    migrate: seed,
    ...core
  } = options;
  const entry = beginEntry(core);
  const { engine, driver } = resolveEngine({ schema, driver: chosen, engine: core.engine });
  const template = await drizzleTemplate({ schema, migrationsFolder, migrationsTable, migrationsSchema, driver, casing, engine });
  const migrate: MigrateFn = async (url, ctx) => {
    await template.migrate(url, ctx);
    if (seed) await seed(url, ctx);
  };
  const database = await openEntry(
    withOptions(entry, {
      engine,
      migrate,
      // The seed function is code we cannot hash: a cacheKey the caller gives covers it.
      cacheKey: [core.cacheKey, template.cacheKey].filter(Boolean).join('|'),
    }),
  );
  const {
    orm: pool,
    close,
    [Symbol.asyncDispose]: dispose,
  } = await ormHandle(
    database,
    () => openDrizzle(driver, driverConnection(database), { schema, casing, logger: drizzleLogger, max: poolSize }),
    (p) => p.close(),
    { entry, pool: (p) => p.client as PoolEvents },
  );
  return { db: pool.db, database, close, [Symbol.asyncDispose]: dispose };
}
