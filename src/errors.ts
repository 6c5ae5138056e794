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
  /** `migrate` (a function or a command) ran longer than migrateTimeoutMs. */
  | 'MIGRATION_TIMEOUT'
  | 'TMPFS_FULL'
  | 'TOO_MANY_CONNECTIONS'
  | 'DATABASE_IN_USE'
  /** `fast-test-db stop` found clients on a server and was not told to cut them off (--force). */
  | 'SERVER_IN_USE'
  | 'NOT_OURS'
  | 'LOCK_TIMEOUT'
  | 'DOCKER_UNAVAILABLE'
  | 'UNSUPPORTED'
  /** A template exists but lacks what clones need (MySQL: its capture): it is rebuilt on the next run. */
  | 'TEMPLATE_BROKEN'
  /** A file the installed package ships (a runner file, the keeper script) is missing: reinstall. */
  | 'PACKAGE_BROKEN'
  /** A folder under a shared root (/dev/shm, the temp dir) is not ours alone: a link, another user's, or writable by others. */
  | 'UNSAFE_PATH'
  | 'QUERY_FAILED';

export class FastTestDbError extends Error {
  override readonly name = 'FastTestDbError';
  readonly code: ErrorCode;
  /** What to do about it, also appended to `message`. */
  readonly fix: string | undefined;

  constructor(code: ErrorCode, what: string, fix?: string, options?: { cause?: unknown }) {
    const said = what + driverLine(what, options?.cause);
    super(fix ? `${said}\n  fix: ${fix}` : said, options);
    this.code = code;
    this.fix = fix;
  }
}

/** What the driver (or the OS) itself said, from the innermost error of a cause chain that has a code or SQL state. */
export interface DriverSaid {
  message: string;
  code?: string;
  sqlState?: string;
}

/**
 * The innermost driver error under `e`: ORMs wrap the server's reply (Drizzle's `Failed query: ...`,
 * TypeORM's QueryFailedError), and so do we; the reply itself is what says what went wrong.
 */
export function driverSaid(e: unknown): DriverSaid | undefined {
  let found: DriverSaid | undefined;
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 10; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof FastTestDbError) continue;
    const { code, sqlState } = c as { code?: unknown; sqlState?: unknown };
    if (typeof code !== 'string' && typeof sqlState !== 'string') continue;
    found = {
      message: messageOf(c),
      code: typeof code === 'string' ? code : undefined,
      // PostgreSQL drivers carry the SQL state as the code; MySQL drivers have both.
      sqlState: typeof sqlState === 'string' ? sqlState : typeof code === 'string' && engineOfCode(code) === 'postgres' ? code : undefined,
    };
  }
  return found;
}

/** The line that adds to `what` whatever of the driver's message, code and SQL state it does not already say. */
function driverLine(what: string, cause: unknown): string {
  const said = cause === undefined ? undefined : driverSaid(cause);
  if (!said) return '';
  const tags = [
    said.code && said.code !== said.sqlState && !what.includes(said.code) ? `code ${said.code}` : '',
    said.sqlState && !what.includes(said.sqlState) ? `SQL state ${said.sqlState}` : '',
  ].filter(Boolean);
  const message = said.message && !what.includes(said.message) ? said.message : '';
  if (!message && tags.length === 0) return '';
  return `\n  driver said: ${[message, tags.length ? `(${tags.join(', ')})` : ''].filter(Boolean).join(' ')}`;
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

/**
 * What a driver or socket error means, whatever the engine. The core decides on this, never on
 * a raw SQLSTATE or ER_* name.
 */
export type DriverErrorKind =
  | 'unreachable'
  | 'auth'
  | 'permission'
  | 'too-many-connections'
  | 'in-use'
  | 'disk-full'
  | 'database-exists'
  | 'database-missing'
  | 'other';

const KINDS: Record<string, DriverErrorKind> = {
  ECONNREFUSED: 'unreachable',
  ENOTFOUND: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ETIMEDOUT: 'unreachable',
  ENOENT: 'unreachable',
  '28P01': 'auth',
  '28000': 'auth',
  ER_ACCESS_DENIED_ERROR: 'auth',
  ER_ACCESS_DENIED_NO_PASSWORD_ERROR: 'auth',
  '42501': 'permission',
  ER_DBACCESS_DENIED_ERROR: 'permission',
  ER_SPECIFIC_ACCESS_DENIED_ERROR: 'permission',
  '53300': 'too-many-connections',
  ER_CON_COUNT_ERROR: 'too-many-connections',
  ER_TOO_MANY_USER_CONNECTIONS: 'too-many-connections',
  '55006': 'in-use',
  ER_LOCK_WAIT_TIMEOUT: 'in-use',
  '53100': 'disk-full',
  ENOSPC: 'disk-full',
  ER_RECORD_FILE_FULL: 'disk-full',
  ER_DISK_FULL: 'disk-full',
  '42P04': 'database-exists',
  ER_DB_CREATE_EXISTS: 'database-exists',
  '3D000': 'database-missing',
  ER_BAD_DB_ERROR: 'database-missing',
};

/** The driver's own code of `e`, or of the driver error a FastTestDbError wraps. */
function driverCode(e: unknown): string {
  const err = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e instanceof FastTestDbError ? err?.cause?.code : err?.code;
  return typeof code === 'string' ? code : '';
}

/** Classifies a driver error (bare, or wrapped by classifyDriverError) into what it means. */
export function driverErrorKind(e: unknown): DriverErrorKind {
  return Object.hasOwn(KINDS, driverCode(e)) ? KINDS[driverCode(e)]! : 'other';
}

/** Fixes that differ by engine; `undefined` engine (a socket error before any reply) names both. */
const FIXES: Record<'auth' | 'permission' | 'connections' | 'inUse', Record<EngineName | 'any', string>> = {
  auth: {
    postgres:
      'check the user and password in the URL (or PGUSER/PGPASSWORD); the user needs the CREATEDB right (ALTER ROLE <user> CREATEDB)',
    mysql: "check the user and password in the URL; the user needs CREATE and DROP rights (GRANT ALL ON *.* TO '<user>'@'%')",
    any: 'check the user and password in the URL',
  },
  permission: {
    postgres: 'the user needs the right to create and drop databases: ALTER ROLE <user> CREATEDB, or use the embedded server',
    mysql: "the user needs the right to create and drop databases: GRANT ALL ON *.* TO '<user>'@'%', or use the embedded server",
    any: 'the user needs the right to create and drop databases, or use the embedded server',
  },
  connections: {
    postgres:
      'close connections your tests leave open, lower the worker count, or raise max_connections on the server (-c max_connections=...; our own servers take the `maxConnections` option)',
    mysql:
      'close connections your tests leave open, lower the worker count, or raise max_connections on the server (--max-connections=...; our own servers take the `maxConnections` option)',
    any: 'close connections your tests leave open, lower the worker count, or raise max_connections (our own servers take the `maxConnections` option)',
  },
  inUse: {
    postgres:
      'close every connection to this database first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true } to destroy()/recreate()',
    mysql:
      'a lock is held by another connection: close every connection to this database first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true } to destroy()/recreate()',
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
  const msg = messageOf(e);
  const which = engine ?? engineOfCode(driverCode(e)) ?? 'any';
  const say = (c: ErrorCode, fix: string) => new FastTestDbError(c, `${context}: ${msg}`, fix, { cause: e });
  switch (driverErrorKind(e)) {
    case 'unreachable':
      return say('UNREACHABLE', 'check that the server is running and that host, port or socket in the URL are right');
    case 'auth':
      return say('AUTH_FAILED', FIXES.auth[which]);
    case 'permission':
      return say('PERMISSION_DENIED', FIXES.permission[which]);
    case 'too-many-connections':
      return say('TOO_MANY_CONNECTIONS', FIXES.connections[which]);
    case 'in-use':
      return say('DATABASE_IN_USE', FIXES.inUse[which]);
    case 'disk-full':
      return say(
        'TMPFS_FULL',
        'the tmpfs holding the data is full: free space in /dev/shm (or the dataRoot option), or point dataRoot at a larger disk',
      );
    default:
      return say('QUERY_FAILED', 'see the cause above; set DEBUG=fast-test-db:* for every statement we ran');
  }
}
