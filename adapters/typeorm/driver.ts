/**
 * What fastInsert needs of TypeORM's drivers, reached below TypeORM: which DataSource types it
 * speaks to and on which engine, and the executors that send its statements on a pg Pool (or the
 * pg client of an open QueryRunner) or a mysql2 pool (or connection). Statements go out prepared:
 * pg by statement name, mysql2 through execute(), so the server parses each text once per connection.
 */
import type { DataSource, DataSourceOptions, QueryRunner } from 'typeorm';
import { classifyDriverError, engineNamed, FastTestDbError, type ConnectionOptions, type EngineName } from '../../src/adapter-kit.js';
import { preparedName } from '../shared/insert-sql.js';

export interface InsertOutcome {
  /** PostgreSQL: the RETURNING rows, in VALUES order. */
  rows: Record<string, unknown>[];
  /** MySQL: the first AUTO_INCREMENT value the statement generated (0 when none). */
  insertId: number;
}

/** Sends one statement on a connection or pool of the DataSource. */
export type Executor = (text: string, values: unknown[]) => Promise<InsertOutcome>;

interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}
interface MysqlExecutable {
  /** mysql2; the older `mysql` package (which TypeORM 0.3 may load) has only query(). */
  execute?(sql: string, values: unknown[], cb: (err: Error | null, result: unknown) => void): void;
  query(sql: string, values: unknown[], cb: (err: Error | null, result: unknown) => void): void;
}

/**
 * node-postgres (`pg`, or its `pg.native`): a module with Client, Pool and the type parsers. A
 * DataSource's `driver` option may put another module there (typeorm-pglite's PGlite shim), whose
 * pool takes neither prepared statements by name nor pg's query objects.
 */
function isNodePostgres(module: unknown): boolean {
  const m = module as { Client?: unknown; Pool?: unknown; types?: unknown } | undefined;
  return typeof m?.Client === 'function' && typeof m.Pool === 'function' && typeof m.types === 'object' && m.types !== null;
}

function pgExecutor(target: PgQueryable): Executor {
  return (text, values) =>
    target.query({ name: preparedName(text), text, values }).then(
      (res) => ({ rows: res.rows, insertId: 0 }),
      (e: unknown) => {
        throw classifyDriverError(e, `fastInsert: ${text.slice(0, 200)}`);
      },
    );
}

function mysqlExecutor(target: MysqlExecutable): Executor {
  const send = target.execute ? target.execute.bind(target) : target.query.bind(target);
  return (text, values) =>
    new Promise((resolve, reject) => {
      send(text, values, (err, result) => {
        if (err) return reject(classifyDriverError(err, `fastInsert: ${text.slice(0, 200)}`));
        const insertId = Number((result as { insertId?: number | string }).insertId ?? 0);
        resolve({ rows: [], insertId });
      });
    });
}

/** One TypeORM driver fastInsert speaks to. */
export interface TypeormDriver {
  engine: EngineName;
  /** The statements on one connection (a QueryRunner's). */
  on(connection: unknown): Executor;
  /** The DataSource's own pool (pg's `master`, mysql2's `pool`), if it is initialised. */
  pool(driver: unknown): unknown;
  /** Whether TypeORM's insert() leaves SERIAL keys out even when the row gives a value (its PostgresDriver does). */
  omitsIncrementKeys: boolean;
  /** A module in the DataSource's `driver` option this executor cannot speak through: why, else undefined. */
  refusesModule?(module: unknown): string | undefined;
}

const pg: TypeormDriver = {
  engine: 'postgres',
  on: (connection) => pgExecutor(connection as PgQueryable),
  pool: (driver) => (driver as { master?: unknown }).master,
  omitsIncrementKeys: true,
  refusesModule: (module) =>
    isNodePostgres(module)
      ? undefined
      : "fastInsert speaks to PostgreSQL through node-postgres (the pg package), and this DataSource's `driver` option is another module (such as a PGlite driver), which takes no prepared statements",
};

const mysql: TypeormDriver = {
  engine: 'mysql',
  on: (connection) => mysqlExecutor(connection as MysqlExecutable),
  pool: (driver) => (driver as { pool?: unknown }).pool,
  omitsIncrementKeys: false,
};

const DRIVERS: readonly TypeormDriver[] = [pg, mysql];

/**
 * The driver behind a DataSource `type`, if we support it: the types we support ("postgres",
 * "mysql", "mariadb") are the names of an engine.
 */
export function typeormDriver(type: DataSourceOptions['type']): TypeormDriver | undefined {
  const engine = engineNamed(type);
  return engine && DRIVERS.find((d) => d.engine === engine.name);
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

/** The driver fastInsert sends this DataSource's statements through. */
export function insertDriverOf(dataSource: DataSource): TypeormDriver {
  const { type } = dataSource.options;
  const driver = typeormDriver(type);
  const custom = (dataSource.options as { driver?: unknown }).driver;
  const refused = custom !== undefined ? driver?.refusesModule?.(custom) : undefined;
  if (refused)
    throw new FastTestDbError(
      'UNSUPPORTED',
      refused,
      'use repository.insert() on this DataSource, or a DataSource on a PostgreSQL server without the `driver` option (typeormTestDb gives one)',
    );
  if (!driver)
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fastInsert does not support the TypeORM driver "${type}"`,
      'use a "postgres", "mysql" or "mariadb" DataSource, or repository.insert() for this one',
    );
  return driver;
}

/** Statements on a QueryRunner's connection: the caller's transaction (manager.transaction(...)), or the one fastInsert opens for a many-statement insert. */
export async function executorOn(driver: TypeormDriver, queryRunner: QueryRunner): Promise<Executor> {
  return driver.on(await queryRunner.connect());
}

/** Statements on the DataSource's own pool. */
export function poolExecutor(dataSource: DataSource, driver: TypeormDriver): Executor {
  const pool = driver.pool(dataSource.driver);
  if (!pool) throw notConnected();
  return driver.on(pool);
}

/** The DataSource's pool: pg's (`master`) or mysql2's (`pool`); a new one after destroy() and initialize(). */
export function poolOf(dataSource: DataSource): unknown {
  const d = dataSource.driver as unknown as { master?: unknown; pool?: unknown };
  return d.master ?? d.pool;
}

function notConnected(): FastTestDbError {
  return new FastTestDbError(
    'UNSUPPORTED',
    'fastInsert needs an initialised DataSource without replication (no pool found on its driver)',
    'call dataSource.initialize() first; with `replication` options, pass a repository from a QueryRunner: dataSource.createQueryRunner("master").manager.getRepository(Entity)',
  );
}
