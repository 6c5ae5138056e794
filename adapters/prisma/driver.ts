/**
 * The driver pool behind a Prisma client, and the Prisma driver adapters we hand it to (PrismaPg
 * takes a pg.Pool, PrismaMariaDb a mariadb.Pool), so that fastInsert and the migrations can use the
 * very same pool without going through Prisma's query pipeline. Which driver adapter serves which
 * engine is said once, in DRIVER_ADAPTERS.
 */
import { dirname, join } from 'node:path';
import {
  classifyDriverError,
  engineOfFlavor,
  FastTestDbError,
  loadPeer,
  type ConnectionOptions,
  type EngineName,
  type Flavor,
} from '../../src/adapter-kit.js';
import { preparedName } from '../shared/insert-sql.js';
import { inTransaction, sqlTransaction } from '../shared/transaction.js';
import type { ScriptExecutor } from './migrations.js';

/** What one INSERT statement gave back. */
export interface StatementResult {
  /** RETURNING rows (PostgreSQL, MariaDB), keyed by column name. */
  rows: Array<Record<string, unknown>>;
  /** First AUTO_INCREMENT value of the statement (MySQL family). */
  insertId?: bigint;
  affected: number;
}

/** Where statements run: the pool, or one connection inside a transaction. */
export interface DriverSession {
  /** Runs a statement as a prepared statement the connection keeps. */
  run(sql: string, params: unknown[]): Promise<StatementResult>;
  /** Plain query with rows as objects (used for reads such as re-selecting inserted rows). */
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

export interface PrismaDriver extends DriverSession {
  readonly engine: EngineName;
  readonly flavor: Flavor;
  /** The driver adapter's package: its key in DRIVER_ADAPTERS. */
  readonly driverAdapterName: DriverAdapterName;
  /** The driver adapter to pass to `new PrismaClient({ adapter })`. */
  readonly driverAdapter: unknown;
  /** The driver's parser of PostgreSQL's text arrays, for list fields; throws where the engine has none. */
  parseTextArray(s: string): Array<string | null>;
  /** The raw pool (pg.Pool or mariadb.Pool). */
  readonly pool: unknown;
  /** Runs `fn` on one connection inside BEGIN ... COMMIT (ROLLBACK when it throws). */
  transaction<T>(fn: (session: DriverSession) => Promise<T>): Promise<T>;
  end(): Promise<void>;
}

export interface DriverOptions {
  /** Pool size; Prisma's own default for pg is 10. */
  max?: number;
}

type PgModule = typeof import('pg');

/**
 * pg parses `timestamp` and `date` in the process time zone; Prisma stores and reads them as UTC.
 * These parsers read them as UTC, leave everything else to pg's defaults.
 */
function pgTypes(pg: PgModule) {
  const textArray = pg.types.getTypeParser(1009 as never) as (s: string) => string[];
  const utc = (s: string) => new Date(s.includes('T') ? s : s.replace(' ', 'T') + (/[+-]\d\d(:?\d\d)?$|Z$/.test(s) ? '' : 'Z'));
  const day = (s: string) => new Date(`${s}T00:00:00Z`);
  const custom: Record<number, (s: string) => unknown> = {
    1114: utc,
    1082: day,
    1115: (s) => textArray(s).map((x) => (x === null ? null : utc(x))),
    1182: (s) => textArray(s).map((x) => (x === null ? null : day(x))),
  };
  return {
    getTypeParser: (oid: number, format?: string) =>
      custom[oid] ?? (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format),
  };
}

async function postgresDriver(conn: ConnectionOptions, opts: DriverOptions): Promise<PrismaDriver> {
  const pg = await loadPeer<PgModule>('pg', 'fast-test-db/prisma on PostgreSQL');
  const { PrismaPg } = await loadPeer<typeof import('@prisma/adapter-pg')>('@prisma/adapter-pg', 'fast-test-db/prisma on PostgreSQL');
  const Pool = (pg as PgModule).Pool ?? (pg as unknown as { default: PgModule }).default.Pool;
  const pool = new Pool({ ...conn, max: opts.max ?? 10 });
  // An idle client that loses its server (e.g. the database is dropped) must not crash the process.
  pool.on('error', () => undefined);
  return pgDriverOn(pool, pg, new PrismaPg(pool), () => pool.end());
}

/** A pg.Pool's sessions, whoever made the pool (we did, or the app's PrismaPg driver adapter). */
export function pgDriverOn(pool: unknown, pg: PgModule, driverAdapter: unknown, end: () => Promise<void>): PrismaDriver {
  const types = pgTypes(pg);
  type Queryable = { query(q: unknown): Promise<unknown> };
  const session = (c: Queryable): DriverSession => ({
    run(sql, params) {
      return c.query({ name: preparedName(sql), text: sql, values: params, types }).then(
        (r) => ({ rows: (r as { rows: Array<Record<string, unknown>> }).rows, affected: (r as { rowCount: number | null }).rowCount ?? 0 }),
        (e: unknown) => {
          throw classifyDriverError(e, 'fastInsert');
        },
      );
    },
    async query(sql, params = []) {
      return ((await c.query({ text: sql, values: params, types })) as { rows: Array<Record<string, unknown>> }).rows;
    },
  });
  return {
    engine: 'postgres',
    flavor: 'postgres',
    driverAdapterName: '@prisma/adapter-pg',
    driverAdapter,
    parseTextArray: pg.types.getTypeParser(1009 as never) as never,
    pool,
    ...session(pool as Queryable),
    async transaction(fn) {
      const client = (await (pool as { connect(): Promise<Queryable & { release(): void }> }).connect()) as Queryable & {
        query(sql: string): Promise<unknown>;
        release(): void;
      };
      return inTransaction(sqlTransaction(client), () => fn(session(client)));
    },
    end,
  };
}

type MariaModule = typeof import('mariadb');

/**
 * The `mariadb` driver comes with @prisma/adapter-mariadb; with strict installs (pnpm) it is only
 * resolvable from the driver adapter's folder, so look there when the project does not list it.
 */
async function loadMariadb(why: string): Promise<MariaModule> {
  try {
    return await loadPeer<MariaModule>('mariadb', why);
  } catch (e) {
    try {
      const { createRequire } = await import('node:module');
      const fromProject = createRequire(join(process.cwd(), 'package.json'));
      const adapterDir = dirname(fromProject.resolve('@prisma/adapter-mariadb/package.json'));
      return createRequire(join(adapterDir, 'package.json'))('mariadb') as MariaModule;
    } catch {
      throw e;
    }
  }
}

/**
 * Pool options: dates and JSON as strings (BIGINT as bigint and DECIMAL as string are the driver's
 * defaults), converted by field type afterwards. Set on the pool, not per query: the driver runs
 * a statement with per-query options markedly slower (measured ~1.5x per row). Prisma's driver adapter
 * passes these same three per query, so its own reads are unaffected.
 */
const MARIA_READ = { dateStrings: true, autoJsonMap: false, jsonStrings: true } as const;

async function mariadbDriver(conn: ConnectionOptions, flavor: Flavor, opts: DriverOptions): Promise<PrismaDriver> {
  const mariadb = await loadMariadb('fast-test-db/prisma on MySQL/MariaDB (via @prisma/adapter-mariadb)');
  const { PrismaMariaDb } = await loadPeer<typeof import('@prisma/adapter-mariadb')>(
    '@prisma/adapter-mariadb',
    'fast-test-db/prisma on MySQL/MariaDB',
  );
  const socket = conn.host.startsWith('/');
  const pool = mariadb.createPool({
    ...(socket ? { socketPath: conn.host } : { host: conn.host, port: conn.port }),
    user: conn.user,
    password: conn.password,
    database: conn.database,
    connectionLimit: opts.max ?? 10,
    // Prisma reads DATETIME as UTC; so must our session.
    timezone: '+00:00',
    ...MARIA_READ,
  } as never);
  return mariadbDriverOn(pool, flavor, new PrismaMariaDb(pool), () => pool.end(), false);
}

/**
 * A mariadb pool's sessions, whoever made the pool. `perQuery`: the pool is not ours, so its
 * options may differ from MARIA_READ; each statement then carries them (slower, but the values
 * read back are the same).
 */
export function mariadbDriverOn(
  pool: unknown,
  flavor: Flavor,
  driverAdapter: unknown,
  end: () => Promise<void>,
  perQuery: boolean,
): PrismaDriver {
  type Conn = { execute(q: unknown, v: unknown[]): Promise<unknown>; query(q: unknown, v?: unknown[]): Promise<unknown> };
  const statement = (sql: string) => (perQuery ? { sql, ...MARIA_READ } : sql);
  const session = (c: Conn): DriverSession => ({
    async run(sql, params) {
      try {
        const r = await c.execute(statement(sql), params);
        if (Array.isArray(r)) return { rows: r as Array<Record<string, unknown>>, affected: r.length };
        const ok = r as { affectedRows: number; insertId: bigint | number };
        return { rows: [], insertId: BigInt(ok.insertId ?? 0), affected: ok.affectedRows };
      } catch (e) {
        throw classifyDriverError(e, 'fastInsert');
      }
    },
    async query(sql, params = []) {
      return (await c.query(statement(sql), params)) as Array<Record<string, unknown>>;
    },
  });
  type Lent = Conn & { beginTransaction(): Promise<void>; commit(): Promise<void>; rollback(): Promise<void>; release(): unknown };
  return {
    engine: 'mysql',
    flavor,
    driverAdapterName: '@prisma/adapter-mariadb',
    driverAdapter,
    parseTextArray: () => {
      throw new FastTestDbError('UNSUPPORTED', 'array columns are PostgreSQL-only', 'remove the list field');
    },
    pool,
    ...session(pool as Conn),
    async transaction(fn) {
      const conn = await (pool as { getConnection(): Promise<Lent> }).getConnection();
      return inTransaction(
        {
          begin: () => conn.beginTransaction(),
          commit: () => conn.commit(),
          rollback: () => conn.rollback(),
          release: () => conn.release(),
        },
        () => fn(session(conn)),
      );
    },
    end,
  };
}

/** A single connection that can run whole migration scripts (multi-statement). */
type ScriptConnection = ScriptExecutor & { close(): Promise<void> };

async function pgScript(conn: ConnectionOptions): Promise<ScriptConnection> {
  const pg = await loadPeer<PgModule>('pg', 'fast-test-db/prisma migrations on PostgreSQL');
  const Client = (pg as PgModule).Client ?? (pg as unknown as { default: PgModule }).default.Client;
  const client = new Client({ ...conn });
  await client.connect();
  return {
    family: 'postgres',
    // No parameters: the simple query protocol runs every statement of the script, as psql would.
    script: async (sql) => void (await client.query(sql)),
    query: async (sql, params) => (await client.query(sql, params)).rows,
    close: () => client.end(),
  };
}

async function mariadbScript(conn: ConnectionOptions): Promise<ScriptConnection> {
  const mariadb = await loadMariadb('fast-test-db/prisma migrations on MySQL/MariaDB');
  const socket = conn.host.startsWith('/');
  const c = await mariadb.createConnection({
    ...(socket ? { socketPath: conn.host } : { host: conn.host, port: conn.port }),
    user: conn.user,
    password: conn.password,
    database: conn.database,
    multipleStatements: true,
    timezone: '+00:00',
    ...MARIA_READ,
  } as never);
  return {
    family: 'mysql',
    script: async (sql) => void (await c.query(sql)),
    query: async (sql, params) => (await c.query(sql, params)) as Array<Record<string, unknown>>,
    close: () => c.end(),
  };
}

interface DriverAdapterEntry {
  engine: EngineName;
  /** Whether a Prisma 6 client on this driver adapter can share our pool (@prisma/adapter-mariadb 6 takes only settings). */
  prisma6: boolean;
  /** Our pool on `conn`, with the driver adapter on it. */
  open(conn: ConnectionOptions, flavor: Flavor, opts: DriverOptions): Promise<PrismaDriver>;
  /** One connection for migration scripts. */
  script(conn: ConnectionOptions): Promise<ScriptConnection>;
}

/** The Prisma driver adapters fastInsert and the migrations speak through, by package name. */
export const DRIVER_ADAPTERS = {
  '@prisma/adapter-pg': { engine: 'postgres', prisma6: true, open: (conn, _flavor, opts) => postgresDriver(conn, opts), script: pgScript },
  '@prisma/adapter-mariadb': { engine: 'mysql', prisma6: false, open: mariadbDriver, script: mariadbScript },
} as const satisfies Record<string, DriverAdapterEntry>;

export type DriverAdapterName = keyof typeof DRIVER_ADAPTERS;

export function isDriverAdapterName(name: unknown): name is DriverAdapterName {
  return typeof name === 'string' && Object.hasOwn(DRIVER_ADAPTERS, name);
}

function driverAdapterOf(engine: EngineName): DriverAdapterEntry {
  return Object.values<DriverAdapterEntry>(DRIVER_ADAPTERS).find((a) => a.engine === engine)!;
}

export async function openDriver(conn: ConnectionOptions, flavor: Flavor, opts: DriverOptions = {}): Promise<PrismaDriver> {
  return driverAdapterOf(engineOfFlavor(flavor).name).open(conn, flavor, opts);
}

/** A single connection that can run whole migration scripts (multi-statement). */
export function openScriptExecutor(conn: ConnectionOptions, engine: EngineName): Promise<ScriptConnection> {
  return driverAdapterOf(engine).script(conn);
}
