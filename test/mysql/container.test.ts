/** A real MySQL container, only where a Docker engine answers; the definition itself is unit-tested in flags.test.ts. */
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { dockerLikelyAvailable } from '../../src/server/providers/container.js';
import { startMysqlContainer } from '../../src/engines/mysql/container.js';

const dockerAvailable = dockerLikelyAvailable();
if (!dockerAvailable)
  console.log('container-mysql: real container test skipped: no Docker engine here (no DOCKER_HOST, no /var/run/docker.sock)');

describe('MySQL in a container', () => {
  it.skipIf(!dockerAvailable)(
    'starts with durability off on tmpfs and reads it back',
    async () => {
      const info = await startMysqlContainer({ image: 'mysql:8.4', redoLogSize: '128M' });
      expect(info).toMatchObject({ engine: 'mysql', flavor: 'mysql', provider: 'container', tuned: true });
      const c = await mysql.createConnection({ host: info.host, port: info.port, user: info.user, password: info.password });
      const [rows] = (await c.query(
        'SELECT @@innodb_flush_log_at_trx_commit AS f, @@log_bin AS b, @@innodb_redo_log_capacity AS r',
      )) as any;
      await c.end();
      expect(rows[0]).toMatchObject({ f: 0, b: 0, r: 128 * 2 ** 20 });
    },
    300_000,
  );
});
