/**
 * The one error class of fast-test-db. Every failure a user can meet carries a stable `code`
 * (match on it, not on the message), what happened, and how to fix it.
 */
export type ErrorCode =
  | 'BAD_OPTION'
  | 'PEER_MISSING'
  | 'BINARY_NOT_FOUND'
  | 'SERVER_START_FAILED'
  | 'PORT_IN_USE'
  | 'UNREACHABLE'
  | 'AUTH_FAILED'
  | 'PERMISSION_DENIED'
  | 'REMOTE_REFUSED'
  | 'MIGRATION_FAILED'
  | 'TMPFS_FULL'
  | 'TOO_MANY_CONNECTIONS'
  | 'DATABASE_IN_USE'
  | 'NOT_OURS'
  | 'LOCK_TIMEOUT'
  | 'DOCKER_UNAVAILABLE'
  | 'UNSUPPORTED'
  | 'QUERY_FAILED';

export class FastTestDbError extends Error {
  override readonly name = 'FastTestDbError';
  readonly code: ErrorCode;
  /** What to do about it, also appended to `message`. */
  readonly fix: string | undefined;

  constructor(code: ErrorCode, what: string, fix?: string, options?: { cause?: unknown }) {
    super(fix ? `${what}\n  fix: ${fix}` : what, options);
    this.code = code;
    this.fix = fix;
  }
}

export function isFastTestDbError(e: unknown, code?: ErrorCode): e is FastTestDbError {
  return e instanceof FastTestDbError && (code === undefined || e.code === code);
}

/** Message of any thrown value, for wrapping. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

type EngineName = 'postgres' | 'mysql';

/** The engine a driver error comes from: SQLSTATEs are five characters, MySQL codes are named ER_*. */
function engineOfCode(code: string): EngineName | undefined {
  if (/^ER_/.test(code)) return 'mysql';
  if (/^[0-9A-Z]{5}$/.test(code) && /\d/.test(code)) return 'postgres';
  return undefined;
}

/** Fixes that differ by engine; `undefined` engine (a socket error before any reply) names both. */
const FIXES: Record<'auth' | 'permission' | 'connections' | 'inUse', Record<EngineName | 'any', string>> = {
  auth: {
    postgres: 'check the user and password in the URL (or PGUSER/PGPASSWORD); the user needs the CREATEDB right (ALTER ROLE <user> CREATEDB)',
    mysql: "check the user and password in the URL; the user needs CREATE and DROP rights (GRANT ALL ON *.* TO '<user>'@'%')",
    any: 'check the user and password in the URL',
  },
  permission: {
    postgres: 'the user needs the right to create and drop databases: ALTER ROLE <user> CREATEDB, or use the embedded server',
    mysql: "the user needs the right to create and drop databases: GRANT ALL ON *.* TO '<user>'@'%', or use the embedded server",
    any: 'the user needs the right to create and drop databases, or use the embedded server',
  },
  connections: {
    postgres: 'close connections your tests leave open, lower the worker count, or raise max_connections on the server (-c max_connections=...; our own servers take the `maxConnections` option)',
    mysql: 'close connections your tests leave open, lower the worker count, or raise max_connections on the server (--max-connections=...; our own servers take the `maxConnections` option)',
    any: 'close connections your tests leave open, lower the worker count, or raise max_connections (our own servers take the `maxConnections` option)',
  },
  inUse: {
    postgres: 'close every connection to this database first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true } to destroy()/recreate()',
    mysql: 'a lock is held by another connection: close every connection to this database first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true } to destroy()/recreate()',
    any: 'close every connection to this database first, or pass { force: true } to destroy()/recreate()',
  },
};

/**
 * Turns a driver or OS error into a FastTestDbError with context. Driver error codes
 * (SQLSTATE for PostgreSQL, errno names for MySQL, syscall codes for sockets) decide the code;
 * the engine (given, or read from the code) decides the words of the fix.
 */
export function classifyDriverError(e: unknown, context: string, engine?: EngineName): FastTestDbError {
  if (e instanceof FastTestDbError) return e;
  const err = e as { code?: string; errno?: number; message?: string };
  const code = String(err?.code ?? '');
  const msg = messageOf(e);
  const which = engine ?? engineOfCode(code) ?? 'any';
  const say = (c: ErrorCode, fix: string) => new FastTestDbError(c, `${context}: ${msg}`, fix, { cause: e });
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'ETIMEDOUT' || code === 'ENOENT')
    return say('UNREACHABLE', 'check that the server is running and that host, port or socket in the URL are right');
  if (code === '28P01' || code === '28000' || code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR')
    return say('AUTH_FAILED', FIXES.auth[which]);
  if (code === '42501' || code === 'ER_DBACCESS_DENIED_ERROR' || code === 'ER_SPECIFIC_ACCESS_DENIED_ERROR')
    return say('PERMISSION_DENIED', FIXES.permission[which]);
  if (code === '53300' || code === 'ER_CON_COUNT_ERROR' || code === 'ER_TOO_MANY_USER_CONNECTIONS')
    return say('TOO_MANY_CONNECTIONS', FIXES.connections[which]);
  if (code === '55006' || code === 'ER_LOCK_WAIT_TIMEOUT')
    return say('DATABASE_IN_USE', FIXES.inUse[which]);
  if (code === '53100' || code === 'ENOSPC' || code === 'ER_RECORD_FILE_FULL' || code === 'ER_DISK_FULL')
    return say('TMPFS_FULL', 'the tmpfs holding the data is full: free space in /dev/shm (or the dataRoot option), or point dataRoot at a larger disk');
  return say('QUERY_FAILED', 'see the cause above; set DEBUG=fast-test-db:* for every statement we ran');
}
