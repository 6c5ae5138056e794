/** A node-postgres connection wrapped into the client every PostgreSQL role file takes. */
import { classifyDriverError } from '../errors.js';
import { logger } from '../../util/log.js';
import { loadPeer } from '../../util/peer.js';
import { untimed } from '../../util/untimed.js';
import type { ServerInfo } from '../../types.js';
import type { SqlClient } from '../engine.js';

const log = logger('postgres');

/** The part of node-postgres we use (structural, so that pg stays an optional peer). */
export interface PgConnection {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
  end(): Promise<void>;
  on(event: 'error' | 'notice', fn: (arg: any) => void): void;
  /** The socket, to ref/unref it. */
  connection?: { stream?: { ref?: () => void; unref?: () => void } };
}

export interface PgClient extends SqlClient {
  readonly raw: PgConnection;
}

export async function connectPostgres(server: ServerInfo, database?: string): Promise<PgClient> {
  const pg = await loadPeer<any>('pg', 'PostgreSQL support');
  const Client = pg.Client ?? pg.default?.Client;
  const client: PgConnection = new Client({
    host: server.socket ?? server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: database ?? server.adminDatabase,
    // A host that drops packets must fail, not hang a test run.
    connectionTimeoutMillis: 15_000,
  });
  // Ours, not the tests': statement timing leaves it alone.
  untimed(client);
  // A connection terminated server-side (DROP ... WITH (FORCE)) must not crash the process.
  client.on('error', (e) => log('connection error: %s', e.message));
  try {
    await client.connect();
  } catch (e) {
    throw classifyDriverError(e, `connecting to PostgreSQL at ${server.socket ?? server.host}:${server.port} as ${server.user}`);
  }
  return {
    raw: client,
    async query<T>(sql: string, params?: unknown[]) {
      log('%s', sql);
      try {
        return (await client.query(sql, params)).rows as T[];
      } catch (e) {
        throw classifyDriverError(e, `PostgreSQL: ${sql.length > 200 ? sql.slice(0, 200) + '…' : sql}`);
      }
    },
    close: () => client.end().catch(() => undefined),
    hold(on) {
      const stream = client.connection?.stream;
      if (on) stream?.ref?.();
      else stream?.unref?.();
    },
  };
}
