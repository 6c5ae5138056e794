/** recreate() off the hot path: a rename is a catalog update, no checkpoint. */
import { sleep } from '../../util/sleep.js';
import type { Swap } from '../engine.js';
import type { PgClient } from './client.js';
import { id } from './quote.js';

/** Ends every other session on `name` (DROP and RENAME then wait for them to exit). */
export async function endConnections(admin: PgClient, name: string): Promise<void> {
  await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
}

export const swap: Swap<PgClient> = {
  async renameDatabases(admin, renames) {
    // A session that just disconnected (a test file's pool) takes a moment to exit, and the server
    // waits for it in steps of 100 ms; looking every 2 ms (for at most 200 ms) waits far less. The
    // count of sessions per database reads what pg_stat_activity does (the backends' status) at
    // under half its cost on a new admin session (1.3-1.8 against 3.6 ms, psql by hand), the first query of a
    // worker's start. The admin session is never on a renamed database, so any count is another's.
    const from = renames.map(([f]) => f);
    for (let i = 0; i < 100; i++) {
      const rows = await admin.query(`SELECT 1 FROM pg_database WHERE datname = ANY($1) AND pg_stat_get_db_numbackends(oid) > 0 LIMIT 1`, [
        from,
      ]);
      if (rows.length === 0) break;
      await sleep(2);
    }
    // One round trip, one implicit transaction: a swap never leaves the name missing.
    await admin.query(renames.map(([f, t]) => `ALTER DATABASE ${id(f)} RENAME TO ${id(t)}`).join('; '));
  },
  endConnections,
};
