/**
 * PostgreSQL in a container (testcontainers): data on tmpfs, the same tuning flags as the embedded
 * server, passed on the command line.
 */
import { DEFAULT_MAX_CONNECTIONS } from '../tuning.js';
import { postgresSettings } from './tuning.js';
import type { ServerInfo, TestDatabaseOptions } from '../../types.js';
import { startDefinedContainer, type ContainerDefinition } from '../../server/providers/container.js';
import { DEFAULT_POSTGRES_IMAGE, resolveOptions } from '../../options/resolve.js';

export function postgresContainerDefinition(options: TestDatabaseOptions): ContainerDefinition {
  const image = resolveOptions(options).image ?? DEFAULT_POSTGRES_IMAGE;
  const major = Number(/:(\d+)/.exec(image)?.[1] ?? 18);
  const settings = postgresSettings({ maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, major });
  return {
    image,
    command: ['postgres', ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    env: { POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_INITDB_ARGS: '--no-sync', PGDATA: '/var/lib/postgresql/data' },
    tmpfs: { '/var/lib/postgresql/data': 'rw,size=2g' },
    port: 5432,
    readyLog: /database system is ready to accept connections/,
    readyLogTimes: 2, // the entrypoint starts a temporary server first
    server: { engine: 'postgres', flavor: 'postgres', user: 'postgres', password: '', adminDatabase: 'postgres' },
  };
}

export async function startPostgresContainer(options: TestDatabaseOptions): Promise<ServerInfo> {
  return startDefinedContainer(postgresContainerDefinition(options));
}
