/** The ER_* codes of MySQL and MariaDB that the library decides on, and the fixes its messages give. */
import type { ErrorCodes } from '../engine.js';

export const errors: ErrorCodes = {
  owns: (code) => /^ER_/.test(code),
  kinds: {
    ER_ACCESS_DENIED_ERROR: 'auth',
    ER_ACCESS_DENIED_NO_PASSWORD_ERROR: 'auth',
    ER_DBACCESS_DENIED_ERROR: 'permission',
    ER_SPECIFIC_ACCESS_DENIED_ERROR: 'permission',
    ER_CON_COUNT_ERROR: 'too-many-connections',
    ER_TOO_MANY_USER_CONNECTIONS: 'too-many-connections',
    ER_LOCK_WAIT_TIMEOUT: 'in-use',
    ER_RECORD_FILE_FULL: 'disk-full',
    ER_DISK_FULL: 'disk-full',
    ER_DB_CREATE_EXISTS: 'database-exists',
    ER_BAD_DB_ERROR: 'database-missing',
  },
  // node-postgres and postgres.js read MySQL's greeting as PostgreSQL messages.
  foreignClient: /unexpected \w+ message from backend|Connection terminated unexpectedly|Unknown Message/i,
  fixes: {
    auth: "check the user and password in the URL; the user needs CREATE and DROP rights (GRANT ALL ON *.* TO '<user>'@'%')",
    permission: "the user needs the right to create and drop databases: GRANT ALL ON *.* TO '<user>'@'%', or use the embedded server",
    connections:
      'close connections your tests leave open, lower the worker count, or raise max_connections on the server (--max-connections=...; our own servers take the `maxConnections` option)',
    inUse:
      'a lock is held by another connection: close every connection to this database first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true } to destroy()/recreate()',
  },
};
