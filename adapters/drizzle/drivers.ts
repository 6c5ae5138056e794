/**
 * Opens the user's chosen driver on a database and wraps it in Drizzle. Drivers and Drizzle's
 * driver modules load lazily: a project using postgres.js needs no `pg` installed, and the reverse.
 */
import { FastTestDbError, loadPeer, logger, type ConnectionOptions, type Engine } from '../../src/adapter-kit.js';
import type { Casing } from './schema-ddl.js';

const log = logger('drizzle');

export type DrizzleDriver = 'pg' | 'postgres-js' | 'mysql2';

export const DRIVER_ENGINE: Record<DrizzleDriver, Engine> = { pg: 'postgres', 'postgres-js': 'postgres', mysql2: 'mysql' };

/** drizzle-orm's module for each driver (its migrator lives at `<module>/migrator`). */
export const DRIZZLE_MODULE: Record<DrizzleDriver, string> = {
  pg: 'drizzle-orm/node-postgres',
  'postgres-js': 'drizzle-orm/postgres-js',
  mysql2: 'drizzle-orm/mysql2',
};

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

function pick<T>(mod: any, name: string): T {
  return (mod?.[name] ?? mod?.default?.[name]) as T;
}

export async function openDrizzle(driver: DrizzleDriver, conn: ConnectionOptions, opts: OpenOptions): Promise<Opened> {
  const why = `drizzleTestDb with driver '${driver}'`;
  const orm = await loadPeer<any>(DRIZZLE_MODULE[driver], why);
  const drizzle = pick<(client: unknown, config: object) => unknown>(orm, 'drizzle');
  const config: Record<string, unknown> = { casing: opts.casing, logger: opts.logger };
  if (opts.schema) config.schema = opts.schema;
  let client: any;
  let close: () => Promise<void>;
  if (driver === 'pg') {
    const pg = await loadPeer<any>('pg', why);
    const Pool = pick<any>(pg, 'Pool');
    client = new Pool({ ...conn, max: opts.max ?? 10 });
    // An idle pooled connection that the server closes (destroy({ force }), a server stop) emits
    // 'error' on the pool; unheard, that kills the test process. Queries still reject as usual.
    client.on('error', (e: Error) => log('idle connection closed: %s', e.message));
    close = () => client.end();
  } else if (driver === 'postgres-js') {
    const postgres = await loadPeer<any>('postgres', why);
    const make = typeof postgres === 'function' ? postgres : postgres.default;
    client = make({
      host: conn.host,
      port: conn.port,
      username: conn.user,
      password: conn.password,
      database: conn.database,
      max: opts.max ?? 10,
      onnotice: () => {},
    });
    close = () => client.end({ timeout: 5 });
  } else if (driver === 'mysql2') {
    const mysql = await loadPeer<any>('mysql2/promise', why);
    const createPool = pick<any>(mysql, 'createPool');
    client = createPool({ ...conn, connectionLimit: opts.max ?? 10 });
    config.mode = 'default';
    close = () => client.end();
  } else {
    throw new FastTestDbError(
      'BAD_OPTION',
      `unknown drizzle driver ${JSON.stringify(driver)}`,
      "use driver: 'pg', 'postgres-js' or 'mysql2'",
    );
  }
  return { db: drizzle(client, config), client, close };
}
