/**
 * typeormTestDb: the user's own DataSourceOptions, pointed at this worker's clone of a template
 * that TypeORM's migrations (or synchronize) built once per schema fingerprint.
 */
import type { DataSource, DataSourceOptions } from 'typeorm';
import {
  adapterDatabase,
  driverConnection,
  type PoolEvents,
  ormHandle,
  FastTestDbError,
  logger,
  messageOf,
  type ConnectionOptions,
  type Engine,
  type TemplateSource,
  type TestDatabase,
  type TestDatabaseOptions,
} from '../../src/adapter-kit.js';
import { poolOf } from './driver.js';
import { inspectSchema, type SchemaSource } from './fingerprint.js';
import { closeDataSource, loadDataSourceClass, openDataSource, type DataSourceClass } from './orm.js';

const log = logger('typeorm');

export interface TypeormTestDbOptions extends Omit<TestDatabaseOptions, 'migrate' | 'engine'>, TypeormTemplateOptions {
  /** Applied to the worker's DataSource only, e.g. `{ logging: true }` or a smaller pool via `extra`. */
  overrides?: Partial<DataSourceOptions>;
}

export interface TypeormTestDb extends AsyncDisposable {
  /** Initialised, connected to this worker's database; its schema is already there. */
  dataSource: DataSource;
  /** This worker's test database: reset(), recreate(), destroy(), url, connection. */
  database: TestDatabase;
  /** Destroys the DataSource and closes the database's own connection; the database stays. */
  close(): Promise<void>;
}

export interface TypeormTemplateOptions {
  /**
   * What builds the template. Default: the DataSource's migrations when it has any (plus
   * synchronize when the options also say `synchronize: true`), otherwise synchronize.
   */
  schema?: SchemaSource;
}

export function engineOfOptions(options: DataSourceOptions): Engine {
  switch (options.type) {
    case 'postgres':
      return 'postgres';
    case 'mysql':
    case 'mariadb':
      return 'mysql';
    default:
      throw new FastTestDbError(
        'UNSUPPORTED',
        `fast-test-db/typeorm does not support DataSource type "${options.type}"`,
        'use type "postgres", "mysql" or "mariadb"',
      );
  }
}

/** The user's options with every way of naming a server replaced by ours. */
export function pointAt(options: DataSourceOptions, conn: ConnectionOptions, extra: Partial<DataSourceOptions>): DataSourceOptions {
  return {
    ...options,
    url: undefined,
    replication: undefined,
    ssl: undefined,
    host: conn.host,
    port: conn.port,
    username: conn.user,
    password: conn.password,
    database: conn.database,
    ...extra,
  } as DataSourceOptions;
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
  try {
    if (source !== 'synchronize') {
      const ran = await ds.runMigrations({
        transaction: (options as { migrationsTransactionMode?: 'all' | 'none' | 'each' }).migrationsTransactionMode ?? 'all',
      });
      log('template %s: %d migrations', conn.database, ran.length);
    }
    if (source !== 'migrations') {
      await ds.synchronize();
      log('template %s: synchronized', conn.database);
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
    migrate: (_url, ctx) => buildSchema(DataSource, ormOptions, ctx.connection, source),
  };
}

/**
 * The app's own options pointed at a worker's database, for frameworks that build the DataSource
 * themselves: `TypeOrmModule.forRoot(typeormOptions(appOptions, testDatabase().connection))` in a
 * NestJS testing module. The template already holds the schema, so the options never synchronize,
 * run migrations or drop the schema.
 */
export function typeormOptions<O extends DataSourceOptions>(
  ormOptions: O,
  connection: ConnectionOptions,
  overrides: Partial<DataSourceOptions> = {},
): O {
  return pointAt(ormOptions, connection, {
    ...overrides,
    synchronize: false,
    migrationsRun: false,
    dropSchema: false,
  } as Partial<DataSourceOptions>) as O;
}

/**
 * The connection half: the user's DataSource, initialised on `connection` (a worker database from
 * createTestDatabase or a runner's testDatabase()), never synchronizing or migrating on its own.
 */
export async function typeormDataSource(
  ormOptions: DataSourceOptions,
  connection: ConnectionOptions,
  overrides: Partial<DataSourceOptions> = {},
): Promise<DataSource> {
  const DataSource = await loadDataSourceClass('fast-test-db/typeorm');
  const dataSource = new DataSource(typeormOptions(ormOptions, connection, overrides));
  try {
    return await openDataSource(dataSource);
  } catch (e) {
    throw new FastTestDbError(
      'QUERY_FAILED',
      `TypeORM could not connect to the test database ${connection.database}: ${messageOf(e)}`,
      'check the DataSource options (pool size, extra) against the server; DEBUG=fast-test-db:* shows the server we used',
      { cause: e },
    );
  }
}

/**
 * A worker's test database with the schema of `ormOptions` (migrations run once per fingerprint,
 * across all workers), and an initialised DataSource on it.
 */
export async function typeormTestDb(ormOptions: DataSourceOptions, ourOptions: TypeormTestDbOptions = {}): Promise<TypeormTestDb> {
  const { schema, overrides, ...core } = ourOptions;
  const s = await typeormTemplate(ormOptions, { schema });
  const database = await adapterDatabase({
    ...core,
    engine: s.engine,
    cacheKey: [core.cacheKey, s.cacheKey].filter(Boolean).join('|'),
    migrate: s.migrate,
  });
  const {
    orm: dataSource,
    close,
    [Symbol.asyncDispose]: dispose,
  } = await ormHandle(
    database,
    () => typeormDataSource(ormOptions, driverConnection(database), overrides),
    async (ds) => {
      // The test may have destroyed it already (initialised: 0.3+/1.x; connected: 0.2.x).
      const open = ds as DataSource & { isConnected?: boolean };
      if (open.isInitialized ?? open.isConnected) await closeDataSource(ds);
    },
    { options: core, pool: (ds) => poolOf(ds) as PoolEvents | undefined },
  );
  return { dataSource, database, close, [Symbol.asyncDispose]: dispose };
}
