/** A mysql2 connection wrapped into the client every MySQL/MariaDB role file takes. */
import { classifyDriverError } from '../errors.js';
import { logger } from '../../util/log.js';
import { loadPeer } from '../../util/peer.js';
import { untimed } from '../../util/untimed.js';
import type { Flavor, ServerInfo } from '../../types.js';
import type { SqlClient } from '../engine.js';
import { flavorOfVersion } from './flavor.js';

const log = logger('mysql');

/** How long DROP DATABASE waits for a metadata lock held by an open transaction before giving up. */
const LOCK_WAIT_SECONDS = 5;
/** Statements per round trip stay below this many characters (max_allowed_packet is 16M on MariaDB). */
const MAX_SCRIPT_CHARS = 4 * 1024 * 1024;

/** The part of mysql2/promise's Connection we use (structural, so that mysql2 stays an optional peer). */
export interface MysqlConnection {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
  destroy(): void;
  on(event: 'error', fn: (e: Error) => void): void;
  /** The underlying connection's socket, to ref/unref it. */
  connection?: { stream?: { ref?: () => void; unref?: () => void } };
}

export interface MysqlClient extends SqlClient {
  readonly raw: MysqlConnection;
  readonly flavor: Flavor;
  /** Runs statements in one round trip; returns one result per statement. */
  multi(statements: string[]): Promise<unknown[]>;
}

function brief(sql: string): string {
  return sql.length > 200 ? sql.slice(0, 200) + '…' : sql;
}

export async function connectMysql(server: ServerInfo, database?: string): Promise<MysqlClient> {
  const mysql = await loadPeer<any>('mysql2/promise', 'MySQL/MariaDB support');
  const createConnection = mysql.createConnection ?? mysql.default?.createConnection;
  const where = server.socket ? server.socket : `${server.host}:${server.port}`;
  let raw: MysqlConnection;
  try {
    raw = await createConnection({
      ...(server.socket ? { socketPath: server.socket } : { host: server.host, port: server.port }),
      user: server.user,
      password: server.password,
      database: database ?? server.adminDatabase,
      // Clones replay a whole captured schema in one round trip; every name in it is quoted.
      multipleStatements: true,
      charset: 'utf8mb4',
      // Values we read back (AUTO_INCREMENT, checksums) may exceed 2^53.
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    });
  } catch (e) {
    throw classifyDriverError(e, `connecting to MySQL/MariaDB at ${where} as ${server.user}`);
  }
  // Ours, not the tests': statement timing leaves it alone (the promise API queries through it).
  untimed(raw.connection);
  // A connection killed server-side (destroy with force) must not crash the process.
  raw.on('error', (e) => log(`connection error: ${e.message}`));
  const run = async (sql: string, params?: unknown[]) => {
    log(brief(sql));
    try {
      return (await raw.query(sql, params))[0];
    } catch (e) {
      throw classifyDriverError(e, `MySQL: ${brief(sql)}`);
    }
  };
  let flavor: Flavor = server.flavor === 'mariadb' ? 'mariadb' : 'mysql';
  if (server.flavor !== 'mariadb' && server.flavor !== 'mysql') {
    const rows = (await run('SELECT VERSION() AS v')) as Array<{ v: string }>;
    flavor = flavorOfVersion(rows[0]?.v ?? '');
  }
  // A DROP DATABASE behind someone's open transaction fails fast instead of waiting a year.
  await run(`SET SESSION lock_wait_timeout = ${LOCK_WAIT_SECONDS}`);
  return {
    raw,
    flavor,
    async query<T>(sql: string, params?: unknown[]) {
      return (await run(sql, params)) as T[];
    },
    async multi(statements: string[]) {
      // One statement comes back bare, several as an array of per-statement results.
      return statements.length === 1 ? [await run(statements[0]!)] : ((await run(statements.join(';\n'))) as unknown[]);
    },
    close: () => raw.end().catch(() => raw.destroy()),
    hold(on) {
      const stream = raw.connection?.stream;
      if (on) stream?.ref?.();
      else stream?.unref?.();
    },
  };
}

/** Splits statements into batches that stay below the packet limit. */
function scripts(statements: string[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let size = 0;
  for (const st of statements) {
    if (cur.length && size + st.length > MAX_SCRIPT_CHARS) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(st);
    size += st.length + 2;
  }
  if (cur.length) out.push(cur);
  return out;
}

export async function runScript(client: MysqlClient, statements: string[]): Promise<void> {
  for (const sc of scripts(statements)) await client.multi(sc);
}
