/** Server-wide locks: advisory locks on a hash of the key, held by the admin connection. */
import type { Locks } from '../engine.js';
import type { PgClient } from './client.js';

export const locks: Locks<PgClient> = {
  async withLock(admin, key, fn) {
    await admin.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
    try {
      return await fn();
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
    }
  },

  async withFreeLock(admin, key, fn) {
    const [row] = await admin.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got`, [
      `fast-test-db:${key}`,
    ]);
    if (!row?.got) return undefined;
    try {
      return await fn();
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
    }
  },
};
