/**
 * The template recipe of a TypeORM project: what builds it (the DataSource's migrations in one
 * transaction, or synchronize) and the fingerprint that says when to build it again (fingerprint.ts).
 */
import type { DataSourceOptions } from 'typeorm';
import {
  FastTestDbError,
  logger,
  messageOf,
  type ConnectionOptions,
  type EngineName,
  type Migrate,
  type TemplateSource,
} from '../../src/adapter-kit.js';
import { contextOf } from '../shared/migrate-context.js';
import { pointAt, typeormDriver } from './driver.js';
import { inspectSchema, type SchemaSource } from './fingerprint.js';
import { closeDataSource, loadDataSourceClass, openDataSource, type DataSourceClass } from './orm.js';

const log = logger('typeorm');

export interface TypeormTemplateOptions {
  /**
   * What builds the template. Default: the DataSource's migrations when it has any (plus
   * synchronize when the options also say `synchronize: true`), otherwise synchronize.
   * 'synchronize-then-migrations': synchronize, then the migrations on top (a project whose schema
   * comes from `schema:sync` and whose migrations only seed rows).
   */
  schema?: SchemaSource;
  /**
   * Run after the schema, in the same build: a function `(url, ctx)`, a command (`'npm run db:seed'`)
   * or a module (`{ module: './src/seed.ts' }`), as the core's `seed` option (docs/templates.md).
   */
  seed?: Migrate;
}

/** The engine a DataSource `type` runs on. */
function engineOfOptions(options: DataSourceOptions): EngineName {
  const driver = typeormDriver(options.type);
  if (!driver)
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fast-test-db/typeorm does not support DataSource type "${options.type}"`,
      'use type "postgres", "mysql" or "mariadb"',
    );
  return driver.engine;
}

/** Builds the template with the user's own TypeORM setup: migrations in one transaction, or synchronize. */
async function buildSchema(
  DataSource: DataSourceClass,
  options: DataSourceOptions,
  conn: ConnectionOptions,
  source: SchemaSource,
): Promise<void> {
  const ds = new DataSource(
    pointAt(options, conn, { synchronize: false, migrationsRun: false, dropSchema: false, logging: false } as Partial<DataSourceOptions>),
  );
  try {
    await openDataSource(ds);
  } catch (e) {
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `TypeORM could not initialise on the template database ${conn.database}: ${messageOf(e)}`,
      'check the entities and options; the same DataSource must initialise in the app',
      { cause: e },
    );
  }
  const migrations = async () => {
    const ran = await ds.runMigrations({
      transaction: (options as { migrationsTransactionMode?: 'all' | 'none' | 'each' }).migrationsTransactionMode ?? 'all',
    });
    log('template %s: %d migrations', conn.database, ran.length);
  };
  const synchronize = async () => {
    await ds.synchronize();
    log('template %s: synchronized', conn.database);
  };
  try {
    if (source === 'synchronize-then-migrations') {
      await synchronize();
      await migrations();
    } else {
      if (source !== 'synchronize') await migrations();
      if (source !== 'migrations') await synchronize();
    }
  } catch (e) {
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `building the schema with TypeORM (${source}) failed on ${conn.database}: ${messageOf(e)}`,
      'run the same migrations against an empty database to see the failing statement; DEBUG=fast-test-db:* shows ours',
      { cause: e },
    );
  } finally {
    await closeDataSource(ds);
  }
}

/**
 * The template half of typeormTestDb, for runner integrations (fast-test-db/jest, /vitest) whose
 * global setup builds the template: `adapter: () => typeormTemplate(dataSourceOptions)`.
 */
export async function typeormTemplate(ormOptions: DataSourceOptions, opts: TypeormTemplateOptions = {}): Promise<TemplateSource> {
  const engine = engineOfOptions(ormOptions);
  const DataSource = await loadDataSourceClass('fast-test-db/typeorm');
  const { source, fingerprint } = await inspectSchema(DataSource, ormOptions, opts.schema);
  return {
    engine,
    cacheKey: `typeorm:${source}:${fingerprint}`,
    migrate: (_url, ctx) => buildSchema(DataSource, ormOptions, contextOf(ctx, 'typeormTemplate').connection, source),
    seed: opts.seed,
  };
}
