/**
 * What fastInsert and the template need of Drizzle's drivers: each driver's engine, its
 * drizzle-orm module and how to open it on a database (drivers and Drizzle's driver modules load
 * lazily: a project using postgres.js needs no `pg` installed, and the reverse), and the executors
 * that run fastInsert's statements on the driver client underneath a Drizzle instance, bypassing
 * Drizzle's query builder but reading results back the way Drizzle's own session does (same type
 * parsers), so that returned rows match `db.insert(...).returning()`.
 */
import { FastTestDbError, loadPeer, logger, type ConnectionOptions, type EngineName } from '../../src/adapter-kit.js';
import { preparedName } from '../shared/insert-sql.js';
import { inTransaction, sqlTransaction } from '../shared/transaction.js';
import { isKind, kindOf } from './meta.js';

const log = logger('drizzle');

export type DrizzleDriver = 'pg' | 'postgres-js' | 'mysql2';

/** drizzle()'s `casing` option; it also shapes the DDL drizzle-kit generates. */
export type Casing = 'snake_case' | 'camelCase';

export interface OpenOptions {
  schema?: Record<string, unknown>;
  casing?: Casing;
  logger?: unknown;
  /** Connections in the pool; 1 opens a single connection (used for migrations). */
  max?: number;
}

export interface Opened {
  db: any;
  client: any;
  close(): Promise<void>;
}

/** A driver client and how to end it. */
type Client = { client: any; close(): Promise<void> };

interface DriverEntry {
  engine: EngineName;
  /** drizzle-orm's module for the driver (its migrator lives at `<module>/migrator`). */
  module: string;
  /** The entity kind of the session drizzle() builds on this driver's client. */
  session: string;
  /** The entity kind of the tables this driver's dialect (pg-core, mysql-core) declares. */
  tables: string;
  /** The driver used on its engine when none is chosen. */
  isDefault: boolean;
  /** Opens the client; `config` is drizzle()'s, which a driver may add to. */
  connect(conn: ConnectionOptions, opts: OpenOptions, config: Record<string, unknown>, why: string): Promise<Client>;
  executor(client: object): Executor | Promise<Executor>;
}

function pick<T>(mod: any, name: string): T {
  return (mod?.[name] ?? mod?.default?.[name]) as T;
}

export const DRIVERS: Readonly<Record<DrizzleDriver, DriverEntry>> = {
  pg: {
    engine: 'postgres',
    module: 'drizzle-orm/node-postgres',
    session: 'NodePgSession',
    tables: 'PgTable',
    isDefault: true,
    async connect(conn, opts, _config, why) {
      const pg = await loadPeer<any>('pg', why);
      const Pool = pick<any>(pg, 'Pool');
      const client = new Pool({ ...conn, max: opts.max ?? 10 });
      // An idle pooled connection that the server closes (destroy({ force }), a server stop) emits
      // 'error' on the pool; unheard, that kills the test process. Queries still reject as usual.
      client.on('error', (e: Error) => log('idle connection closed: %s', e.message));
      return { client, close: () => client.end() };
    },
    executor: (client) => nodePgExecutor(client),
  },
  'postgres-js': {
    engine: 'postgres',
    module: 'drizzle-orm/postgres-js',
    session: 'PostgresJsSession',
    tables: 'PgTable',
    isDefault: false,
    async connect(conn, opts, _config, why) {
      const postgres = await loadPeer<any>('postgres', why);
      const make = typeof postgres === 'function' ? postgres : postgres.default;
      const client = make({
        host: conn.host,
        port: conn.port,
        username: conn.user,
        password: conn.password,
        database: conn.database,
        max: opts.max ?? 10,
        onnotice: () => {},
      });
      return { client, close: () => client.end({ timeout: 5 }) };
    },
    executor: (client) => postgresJsExecutor(client),
  },
  mysql2: {
    engine: 'mysql',
    module: 'drizzle-orm/mysql2',
    session: 'MySql2Session',
    tables: 'MySqlTable',
    isDefault: true,
    async connect(conn, opts, config, why) {
      const mysql = await loadPeer<any>('mysql2/promise', why);
      const createPool = pick<any>(mysql, 'createPool');
      const client = createPool({ ...conn, connectionLimit: opts.max ?? 10 });
      config.mode = 'default';
      return { client, close: () => client.end() };
    },
    executor: (client) => mysql2Executor(client),
  },
};

/** The entry of a driver the user named, or BAD_OPTION. */
export function driverEntry(driver: DrizzleDriver): DriverEntry {
  if (!Object.hasOwn(DRIVERS, driver))
    throw new FastTestDbError(
      'BAD_OPTION',
      `unknown drizzle driver ${JSON.stringify(driver)}`,
      "use driver: 'pg', 'postgres-js' or 'mysql2'",
    );
  return DRIVERS[driver];
}

/** The driver used on `engine` when none is chosen. */
export function defaultDriver(engine: EngineName): DrizzleDriver {
  return (Object.keys(DRIVERS) as DrizzleDriver[]).find((d) => DRIVERS[d].isDefault && DRIVERS[d].engine === engine)!;
}

/** The engine whose tables the schema module declares, when it declares any. */
export function schemaEngine(schema: Record<string, unknown>): EngineName | undefined {
  const drivers = Object.values(DRIVERS);
  for (const value of Object.values(schema)) {
    const driver = drivers.find((d) => isKind(value, d.tables));
    if (driver) return driver.engine;
  }
  return undefined;
}

export async function openDrizzle(driver: DrizzleDriver, conn: ConnectionOptions, opts: OpenOptions): Promise<Opened> {
  const why = `drizzleTestDb with driver '${driver}'`;
  const entry = driverEntry(driver);
  const orm = await loadPeer<any>(entry.module, why);
  const drizzle = pick<(client: unknown, config: object) => unknown>(orm, 'drizzle');
  const config: Record<string, unknown> = { casing: opts.casing, logger: opts.logger };
  if (opts.schema) config.schema = opts.schema;
  const { client, close } = await entry.connect(conn, opts, config, why);
  return { db: drizzle(client, config), client, close };
}

export interface RawInsertResult {
  /** PostgreSQL with RETURNING: one array of raw values per row, in RETURNING order. */
  rows: unknown[][];
  /** MySQL: first generated AUTO_INCREMENT value of the statement (0 when none). */
  insertId: number;
  affected: number;
}

/** Sends fastInsert's statements on a driver client: a pool, or one connection (a transaction's). */
export interface Executor {
  readonly engine: EngineName;
  readonly driver: DrizzleDriver;
  insert(sql: string, params: unknown[], returning: boolean): Promise<RawInsertResult>;
  /**
   * Runs `fn` in a transaction on one connection of the pool. Absent when the client is already a
   * single connection (a transaction's, or a plain Client), where statements run as they come.
   */
  atomically?<T>(fn: (inner: Executor) => Promise<T>): Promise<T>;
}

// node-postgres: the same OIDs Drizzle's NodePgPreparedQuery leaves as text, so that the
// columns' mapFromDriverValue sees what it sees under db.insert().returning().
const PG_TEXT_OIDS = new Set([1184, 1114, 1082, 1186, 1231, 1115, 1185, 1187, 1182]);

async function nodePgExecutor(pool: any): Promise<Executor> {
  const pg = await loadPeer('pg', 'fastInsert with drizzle-orm/node-postgres');
  const pgTypes = pg.types ?? pg.default?.types;
  const types = {
    getTypeParser(oid: number, format?: string) {
      if (PG_TEXT_OIDS.has(oid)) return (v: unknown) => v;
      return pgTypes.getTypeParser(oid, format);
    },
  };
  const on = (client: any): Executor => ({
    engine: 'postgres',
    driver: 'pg',
    async insert(sql, params, returning) {
      // A name makes node-postgres parse the statement once per connection and reuse it.
      const res = await client.query({ name: preparedName(sql), text: sql, values: params, rowMode: 'array', types });
      return { rows: returning ? res.rows : [], insertId: 0, affected: res.rowCount ?? 0 };
    },
  });
  const executor = on(pool);
  // A Pool (not a checked-out client) can lend one connection for a transaction.
  if (typeof pool.connect === 'function' && typeof pool.totalCount === 'number') {
    executor.atomically = async (fn) => {
      const client = await pool.connect();
      return inTransaction(sqlTransaction(client), () => fn(on(client)));
    };
  }
  return executor;
}

function postgresJsExecutor(root: any): Executor {
  // A transaction's scope carries no options of its own; it is the root's connection settings.
  const prepare = root?.options?.prepare !== false;
  const on = (sql: any): Executor => ({
    engine: 'postgres',
    driver: 'postgres-js',
    async insert(text, params, returning) {
      const q = sql.unsafe(text, params, { prepare });
      const rows = returning ? await q.values() : await q;
      return { rows: returning ? rows : [], insertId: 0, affected: rows.count ?? rows.length };
    },
  });
  const executor = on(root);
  // Only the root has begin(); a transaction's scope has savepoint() instead.
  if (typeof root.begin === 'function') executor.atomically = (fn) => root.begin((tx: any) => fn(on(tx)));
  return executor;
}

function mysql2Executor(pool: any): Executor {
  const on = (client: any): Executor => ({
    engine: 'mysql',
    driver: 'mysql2',
    async insert(sql, params) {
      // execute() prepares once per connection (mysql2 keeps an LRU of statements) and binds.
      const [res] = await client.execute(sql, params);
      return { rows: [], insertId: Number(res.insertId ?? 0), affected: Number(res.affectedRows ?? 0) };
    },
  });
  const executor = on(pool);
  if (typeof pool.getConnection === 'function') {
    executor.atomically = async (fn) => {
      const conn = await pool.getConnection();
      return inTransaction(sqlTransaction(conn, 'START TRANSACTION'), () => fn(on(conn)));
    };
  }
  return executor;
}

/** Per driver client; the promise while the first executor is made, so that calls started together share one. */
const executors = new WeakMap<object, Executor | Promise<Executor>>();

/**
 * The executor for a Drizzle database or transaction. Transactions carry their checked-out client
 * in their session, so statements run inside the transaction.
 */
export function executorFor(db: unknown): Executor | Promise<Executor> {
  const session = (db as { session?: { client?: unknown } } | undefined)?.session;
  const client = (session?.client ?? (db as { $client?: unknown })?.$client) as object | undefined;
  if (!session || !client) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      'fastInsert needs a Drizzle database or transaction object (the value drizzle() returns)',
      'pass the `db` from drizzleTestDb() or from drizzle(client)',
    );
  }
  let known = executors.get(client);
  if (!known) {
    known = createExecutor(session, client);
    executors.set(client, known);
    // A failed one is not kept: the next call tries again and reports its own error.
    known.then(
      (r) => executors.set(client, r),
      () => executors.delete(client),
    );
  }
  return known;
}

async function createExecutor(session: object, client: object): Promise<Executor> {
  const kind = kindOf(session);
  const driver = Object.values(DRIVERS).find((d) => d.session === kind);
  if (driver) return driver.executor(client);
  throw new FastTestDbError(
    'UNSUPPORTED',
    `fastInsert does not support the Drizzle driver behind this instance (${kind ?? 'unknown session'})`,
    'use drizzle-orm/node-postgres, drizzle-orm/postgres-js or drizzle-orm/mysql2, or db.insert(table).values(rows) for other drivers',
  );
}
