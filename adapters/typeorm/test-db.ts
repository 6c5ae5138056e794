/**
 * typeormTestDb: the user's own DataSourceOptions, pointed at this worker's clone of a template
 * that TypeORM's migrations (or synchronize) built once per schema fingerprint (template.ts).
 */
import type { DataSource, DataSourceOptions } from 'typeorm';
import {
  beginEntry,
  openEntry,
  withOptions,
  type PoolEvents,
  ormHandle,
  FastTestDbError,
  messageOf,
  type ConnectionOptions,
  type TestDatabase,
  type TestDatabaseOptions,
} from '../../src/adapter-kit.js';
import { driverConnection } from '../shared/connection.js';
import { pointAt, poolOf } from './driver.js';
import { closeDataSource, loadDataSourceClass, openDataSource } from './orm.js';
import { typeormTemplate, type TypeormTemplateOptions } from './template.js';

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
  const entry = beginEntry(core);
  const s = await typeormTemplate(ormOptions, { schema });
  const database = await openEntry(
    withOptions(entry, { engine: s.engine, cacheKey: [core.cacheKey, s.cacheKey].filter(Boolean).join('|'), migrate: s.migrate }),
  );
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
    { entry, pool: (ds) => poolOf(ds) as PoolEvents | undefined },
  );
  return { dataSource, database, close, [Symbol.asyncDispose]: dispose };
}
