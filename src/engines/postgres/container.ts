/**
 * PostgreSQL in a container (testcontainers): data on tmpfs, the same tuning flags as the embedded
 * server. The command line carries the settings every major takes; those that depend on the
 * major are applied once the running server has said its version (ALTER SYSTEM and a reload), as
 * an image's name does not say it reliably (`localhost:5000/postgres:14`, `postgis/postgis:16-3.4`).
 */
import { DEFAULT_MAX_CONNECTIONS } from '../tuning.js';
import { postgresSettings } from './tuning.js';
import type { TestDatabaseOptions } from '../../types.js';
import type { ContainerDefinition } from '../engine.js';
import { id, lit } from './quote.js';

export const DEFAULT_POSTGRES_IMAGE = 'postgres:18-alpine';

export function containerDefinition(options: TestDatabaseOptions, image: string | undefined): ContainerDefinition {
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  // Major 0: only the settings no major lacks.
  const everyMajor = postgresSettings({ maxConnections, major: 0 });
  return {
    image: image ?? DEFAULT_POSTGRES_IMAGE,
    command: ['postgres', ...Object.entries(everyMajor).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    env: { POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_INITDB_ARGS: '--no-sync', PGDATA: '/var/lib/postgresql/data' },
    tmpfs: { '/var/lib/postgresql/data': 'rw,size=2g' },
    port: 5432,
    readyLog: /database system is ready to accept connections/,
    readyLogTimes: 2, // the entrypoint starts a temporary server first
    server: { engine: 'postgres', flavor: 'postgres', user: 'postgres', password: '', adminDatabase: 'postgres' },
    async settle(admin, version) {
      const major = Number(version.split('.')[0]) || 0;
      const more = Object.entries(postgresSettings({ maxConnections, major })).filter(([k]) => !(k in everyMajor));
      if (more.length === 0) return;
      // Only reloadable settings depend on the major today; a postmaster one would need a restart.
      for (const [k, v] of more) await admin.query(`ALTER SYSTEM SET ${id(k)} = ${lit(v)}`);
      await admin.query('SELECT pg_reload_conf()');
    },
  };
}
