/**
 * A transaction on one connection lent by a pool, for drivers whose pools have no transaction
 * helper of their own: begin, run `body`, commit; roll back when it throws; always give the
 * connection back.
 */
export interface LentConnection {
  begin(): Promise<unknown>;
  commit(): Promise<unknown>;
  rollback(): Promise<unknown>;
  release(): unknown;
}

export async function inTransaction<T>(conn: LentConnection, body: () => Promise<T>): Promise<T> {
  try {
    await conn.begin();
    const out = await body();
    await conn.commit();
    return out;
  } catch (e) {
    // The body's error is the one to report, not a failed rollback's.
    await conn.rollback().catch(() => undefined);
    throw e;
  } finally {
    await conn.release();
  }
}

/** The same, on a connection that only speaks SQL (node-postgres' PoolClient, mysql2's PoolConnection). */
export function sqlTransaction(conn: { query(sql: string): Promise<unknown>; release(): unknown }, beginSql = 'BEGIN'): LentConnection {
  return {
    begin: () => conn.query(beginSql),
    commit: () => conn.query('COMMIT'),
    rollback: () => conn.query('ROLLBACK'),
    release: () => conn.release(),
  };
}
