/**
 * Driver and socket errors classified by what they mean, with each engine's codes and fixes
 * (postgres/errors.ts, mysql/errors.ts). The core decides on a DriverErrorKind, never on a raw
 * SQLSTATE or ER_* name.
 */
import { FastTestDbError, messageOf, type ErrorCode } from '../errors.js';
import type { DriverErrorKind, EngineName, ErrorCodes } from './engine.js';
import { errors as mysql } from './mysql/errors.js';
import { errors as postgres } from './postgres/errors.js';

export type { DriverErrorKind } from './engine.js';

/**
 * Every engine's codes, for an error whose engine the caller does not know (a wrapped ORM error).
 * Kept apart from the engine table (index.ts), which loads the driver-side roles that classify
 * their own errors here.
 */
const CODES: Readonly<Record<EngineName, ErrorCodes>> = { postgres, mysql };

/** What the OS says about a socket or file, the same under every engine. */
const SOCKET_KINDS: Readonly<Record<string, DriverErrorKind>> = {
  ECONNREFUSED: 'unreachable',
  ENOTFOUND: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ETIMEDOUT: 'unreachable',
  ENOENT: 'unreachable',
  ENOSPC: 'disk-full',
};

/** The fixes when the engine is unknown (a socket error before any reply): words that fit both. */
const ANY_FIXES: ErrorCodes['fixes'] = {
  auth: 'check the user and password in the URL',
  permission: 'the user needs the right to create and drop databases, or use the embedded server',
  connections:
    'close connections your tests leave open, lower the worker count, or raise max_connections (our own servers take the `maxConnections` option)',
  inUse: 'close every connection to this database first, or pass { force: true } to destroy()/recreate()',
};

/** The driver's own code of `e`, or of the driver error a FastTestDbError wraps. */
function driverCode(e: unknown): string {
  const err = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e instanceof FastTestDbError ? err?.cause?.code : err?.code;
  return typeof code === 'string' ? code : '';
}

/** The engine whose code `code` is. */
function engineOfCode(code: string): EngineName | undefined {
  return (Object.keys(CODES) as EngineName[]).find((name) => CODES[name].owns(code));
}

/** Classifies a driver error (bare, or wrapped by classifyDriverError) into what it means. */
export function driverErrorKind(e: unknown): DriverErrorKind {
  const code = driverCode(e);
  if (Object.hasOwn(SOCKET_KINDS, code)) return SOCKET_KINDS[code]!;
  const engine = engineOfCode(code);
  const kinds = engine ? CODES[engine].kinds : {};
  return Object.hasOwn(kinds, code) ? kinds[code]! : 'other';
}

/**
 * Turns a driver or OS error into a FastTestDbError with context. Driver error codes
 * (SQLSTATE for PostgreSQL, errno names for MySQL, syscall codes for sockets) decide the code;
 * the engine (given, or read from the code) decides the words of the fix.
 */
export function classifyDriverError(e: unknown, context: string, engine?: EngineName): FastTestDbError {
  if (e instanceof FastTestDbError) return e;
  const msg = messageOf(e);
  const which = engine ?? engineOfCode(driverCode(e));
  const fixes = which ? CODES[which].fixes : ANY_FIXES;
  const say = (c: ErrorCode, fix: string) => new FastTestDbError(c, `${context}: ${msg}`, fix, { cause: e });
  switch (driverErrorKind(e)) {
    case 'unreachable':
      return say('UNREACHABLE', 'check that the server is running and that host, port or socket in the URL are right');
    case 'auth':
      return say('AUTH_FAILED', fixes.auth);
    case 'permission':
      return say('PERMISSION_DENIED', fixes.permission);
    case 'too-many-connections':
      return say('TOO_MANY_CONNECTIONS', fixes.connections);
    case 'in-use':
      return say('DATABASE_IN_USE', fixes.inUse);
    case 'disk-full':
      return say(
        'TMPFS_FULL',
        'the tmpfs holding the data is full: free space in /dev/shm (or the dataRoot option), or point dataRoot at a larger disk',
      );
    default:
      return say('QUERY_FAILED', 'see the cause above; set DEBUG=fast-test-db:* for every statement we ran');
  }
}
