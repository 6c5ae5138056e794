/** PostgreSQL's SQLSTATEs that the library decides on, and the fixes its messages give. */
import { isSqlState } from '../../errors.js';
import type { ErrorCodes } from '../engine.js';

export const errors: ErrorCodes = {
  // node-postgres gives the SQL state as the code.
  owns: isSqlState,
  kinds: {
    '28P01': 'auth',
    '28000': 'auth',
    '42501': 'permission',
    '53300': 'too-many-connections',
    '55006': 'in-use',
    '53100': 'disk-full',
    '42P04': 'database-exists',
    '3D000': 'database-missing',
  },
  // mysql2 and mariadb wait for a greeting that PostgreSQL never sends; the packet parser may also trip.
  foreignClient: /\bETIMEDOUT\b|connect(ion)? timeout|greeting|Malformed communication packet|Packets out of order/i,
  fixes: {
    auth: 'check the user and password in the URL (or PGUSER/PGPASSWORD); the user needs the CREATEDB right (ALTER ROLE <user> CREATEDB)',
    permission: 'the user needs the right to create and drop databases: ALTER ROLE <user> CREATEDB, or use the embedded server',
    connections:
      'close connections your tests leave open, lower the worker count, or raise max_connections on the server (-c max_connections=...; our own servers take the `maxConnections` option)',
    inUse:
      'close every connection to this database first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true } to destroy()/recreate()',
  },
};
