/**
 * Runs fastInsert's statements on the driver client underneath a Drizzle instance, bypassing
 * Drizzle's query builder but reading results back the way Drizzle's own session does
 * (same type parsers), so that returned rows match `db.insert(...).returning()`.
 */
import { FastTestDbError, loadPeer, type SqlFamily } from '../../src/adapter-kit.js';
import { preparedName } from '../shared/insert-sql.js';
import { inTransaction, sqlTransaction } from '../shared/transaction.js';
import { kindOf } from './meta.js';

export interface RawInsertResult {
  /** PostgreSQL with RETURNING: one array of raw values per row, in RETURNING order. */
  rows: unknown[][];
  /** MySQL: first generated AUTO_INCREMENT value of the statement (0 when none). */
  insertId: number;
  affected: number;
}

export interface InsertSession {
  readonly family: SqlFamily;
  readonly driver: 'pg' | 'postgres-js' | 'mysql2';
  insert(sql: string, params: unknown[], returning: boolean): Promise<RawInsertResult>;
  /**
   * Runs `fn` in a transaction on one connection of the pool. Absent when the client is already a
   * single connection (a transaction's, or a plain Client), where statements run as they come.
   */
  atomically?<T>(fn: (inner: InsertSession) => Promise<T>): Promise<T>;
}

// node-postgres: the same OIDs Drizzle's NodePgPreparedQuery leaves as text, so that the
// columns' mapFromDriverValue sees what it sees under db.insert().returning().
const PG_TEXT_OIDS = new Set([1184, 1114, 1082, 1186, 1231, 1115, 1185, 1187, 1182]);

async function nodePgRunner(pool: any): Promise<InsertSession> {
  const pg = await loadPeer('pg', 'fastInsert with drizzle-orm/node-postgres');
  const pgTypes = pg.types ?? pg.default?.types;
  const types = {
    getTypeParser(oid: number, format?: string) {
      if (PG_TEXT_OIDS.has(oid)) return (v: unknown) => v;
      return pgTypes.getTypeParser(oid, format);
    },
  };
  const on = (client: any): InsertSession => ({
    family: 'postgres',
    driver: 'pg',
    async insert(sql, params, returning) {
      // A name makes node-postgres parse the statement once per connection and reuse it.
      const res = await client.query({ name: preparedName(sql), text: sql, values: params, rowMode: 'array', types });
      return { rows: returning ? res.rows : [], insertId: 0, affected: res.rowCount ?? 0 };
    },
  });
  const runner = on(pool);
  // A Pool (not a checked-out client) can lend one connection for a transaction.
  if (typeof pool.connect === 'function' && typeof pool.totalCount === 'number') {
    runner.atomically = async (fn) => {
      const client = await pool.connect();
      return inTransaction(sqlTransaction(client), () => fn(on(client)));
    };
  }
  return runner;
}

function postgresJsRunner(root: any): InsertSession {
  // A transaction's scope carries no options of its own; it is the root's connection settings.
  const prepare = root?.options?.prepare !== false;
  const on = (sql: any): InsertSession => ({
    family: 'postgres',
    driver: 'postgres-js',
    async insert(text, params, returning) {
      const q = sql.unsafe(text, params, { prepare });
      const rows = returning ? await q.values() : await q;
      return { rows: returning ? rows : [], insertId: 0, affected: rows.count ?? rows.length };
    },
  });
  const runner = on(root);
  // Only the root has begin(); a transaction's scope has savepoint() instead.
  if (typeof root.begin === 'function') runner.atomically = (fn) => root.begin((tx: any) => fn(on(tx)));
  return runner;
}

function mysql2Runner(pool: any): InsertSession {
  const on = (client: any): InsertSession => ({
    family: 'mysql',
    driver: 'mysql2',
    async insert(sql, params) {
      // execute() prepares once per connection (mysql2 keeps an LRU of statements) and binds.
      const [res] = await client.execute(sql, params);
      return { rows: [], insertId: Number(res.insertId ?? 0), affected: Number(res.affectedRows ?? 0) };
    },
  });
  const runner = on(pool);
  if (typeof pool.getConnection === 'function') {
    runner.atomically = async (fn) => {
      const conn = await pool.getConnection();
      return inTransaction(sqlTransaction(conn, 'START TRANSACTION'), () => fn(on(conn)));
    };
  }
  return runner;
}

/** Per driver client; the promise while the first runner is made, so that calls started together share one. */
const runners = new WeakMap<object, InsertSession | Promise<InsertSession>>();

/**
 * The runner for a Drizzle database or transaction. Transactions carry their checked-out client
 * in their session, so statements run inside the transaction.
 */
export function runnerFor(db: unknown): InsertSession | Promise<InsertSession> {
  const session = (db as { session?: { client?: unknown } } | undefined)?.session;
  const client = (session?.client ?? (db as { $client?: unknown })?.$client) as object | undefined;
  if (!session || !client) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      'fastInsert needs a Drizzle database or transaction object (the value drizzle() returns)',
      'pass the `db` from drizzleTestDb() or from drizzle(client)',
    );
  }
  let known = runners.get(client);
  if (!known) {
    known = createRunner(session, client);
    runners.set(client, known);
    // A failed one is not kept: the next call tries again and reports its own error.
    known.then(
      (r) => runners.set(client, r),
      () => runners.delete(client),
    );
  }
  return known;
}

async function createRunner(session: object, client: object): Promise<InsertSession> {
  const kind = kindOf(session);
  if (kind === 'NodePgSession') return nodePgRunner(client);
  if (kind === 'PostgresJsSession') return postgresJsRunner(client);
  if (kind === 'MySql2Session') return mysql2Runner(client);
  throw new FastTestDbError(
    'UNSUPPORTED',
    `fastInsert does not support the Drizzle driver behind this instance (${kind ?? 'unknown session'})`,
    'use drizzle-orm/node-postgres, drizzle-orm/postgres-js or drizzle-orm/mysql2, or db.insert(table).values(rows) for other drivers',
  );
}
