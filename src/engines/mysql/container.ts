/**
 * MySQL or MariaDB in a container, for machines with a Docker engine: data on tmpfs, the same
 * tuning flags as the embedded server, passed as the container's command (never a config file).
 */
import { mysqlServerFlags, type MysqlFlavor } from './tuning.js';
import type { TestDatabaseOptions } from '../../types.js';
import type { ContainerDefinition } from '../engine.js';

export const DEFAULT_MYSQL_IMAGE = 'mysql:8.4';

/** Flavor and version from an image reference such as `mariadb:11.4`, `mysql:8.0.36` or `registry/x/mysql:9.1`. */
export function imageFlavor(image: string): { flavor: MysqlFlavor; version: string } {
  const [repo = '', tag = 'latest'] = image.split('@')[0]!.split(/:(?=[^/]*$)/);
  const flavor: MysqlFlavor = /mariadb/i.test(repo) ? 'mariadb' : 'mysql';
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(tag);
  // `latest` or a named tag: assume a current release, whose flags are a superset of older ones' needs.
  const version = m ? `${m[1]}.${m[2] ?? '99'}.${m[3] ?? '99'}` : flavor === 'mariadb' ? '11.99.0' : '9.99.0';
  return { flavor, version };
}

export function containerDefinition(options: TestDatabaseOptions, requested: string | undefined): ContainerDefinition {
  const image = requested ?? DEFAULT_MYSQL_IMAGE;
  const { flavor, version } = imageFlavor(image);
  const flags = mysqlServerFlags({
    flavor,
    version,
    bufferPoolSize: options.bufferPoolSize,
    redoLogSize: options.redoLogSize,
    maxConnections: options.maxConnections,
  });
  const dataDir = '/var/lib/mysql';
  // The official images run their entrypoint with whatever command starts with a dash as mysqld flags.
  const env: Record<string, string> =
    flavor === 'mariadb'
      ? { MARIADB_ALLOW_EMPTY_ROOT_PASSWORD: '1', MARIADB_ROOT_HOST: '%' }
      : { MYSQL_ALLOW_EMPTY_PASSWORD: 'yes', MYSQL_ROOT_HOST: '%' };
  return {
    image,
    command: flags,
    env,
    tmpfs: { [dataDir]: 'rw,noexec,nosuid,size=2g' },
    port: 3306,
    // The entrypoint starts a temporary server for initialisation first, then the real one.
    readyLog: /ready for connections/i,
    readyLogTimes: 2,
    server: { engine: 'mysql', flavor, user: 'root', password: '', adminDatabase: 'mysql' },
  };
}
