/**
 * A real MariaDB (or MySQL) container, with the image .ci/docker builds (FAST_TEST_DB_MARIADB_IMAGE);
 * the definition itself is unit-tested in flags.test.ts.
 */
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { images, ryukOff, skipReason, startContainer } from '../../container/helpers.js';

process.env.TESTCONTAINERS_RYUK_DISABLED ??= ryukOff.TESTCONTAINERS_RYUK_DISABLED;

describe.skipIf(skipReason)('MariaDB in a container', () => {
  it('starts with durability off on tmpfs, reads it back, and is removed on stop', async () => {
    const server = await startContainer('mysql', { image: images.mariadb, redoLogSize: '128M' });
    try {
      expect(server.info).toMatchObject({ engine: 'mysql', flavor: 'mariadb', provider: 'container', tuned: true });
      const c = await mysql.createConnection({
        host: server.info.host,
        port: server.info.port,
        user: server.info.user,
        password: server.info.password,
      });
      const [rows] = (await c.query(
        'SELECT @@innodb_flush_log_at_trx_commit AS f, @@log_bin AS b, @@innodb_log_file_size AS r, @@datadir AS d, @@character_set_server AS cs',
      )) as any;
      await c.end();
      expect(rows[0]).toMatchObject({ f: 0, b: 0, r: 128 * 2 ** 20, d: '/var/lib/mysql/', cs: 'utf8mb4' });
    } finally {
      expect(await server.stop()).toBe('stopped');
    }
  }, 300_000);
});
