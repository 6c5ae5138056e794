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
  | 'QUERY_FAILED'
  /** An image for server: 'container' (ours, or testcontainers' Ryuk) is not on the Docker engine and could not be pulled. */
  | 'IMAGE_PULL_FAILED'
  /** An installed peer's version cannot run here (testcontainers 12 on Node < 22.22): both versions are named. */
  | 'PEER_UNSUPPORTED'
  /** `fast-test-db init` would change a file that already names fast-test-db, or the project has a fast-test-db.config.*: --force to go on. */
  | 'WOULD_OVERWRITE';

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
      // A driver without a separate SQL state may give it as its code.
      sqlState: typeof sqlState === 'string' ? sqlState : typeof code === 'string' && isSqlState(code) ? code : undefined,
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

/** What an error says happened, without the fix a FastTestDbError appends. */
export function errorWhat(e: unknown): string {
  return e instanceof FastTestDbError ? e.message.split('\n  fix: ')[0]! : messageOf(e);
}

/** The fix a FastTestDbError carries. */
export function errorFix(e: unknown): string | undefined {
  return e instanceof FastTestDbError ? e.fix : undefined;
}

/** Message of any thrown value, for wrapping. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Whether a driver's `code` is a SQL state: the SQL standard's five characters of digits and
 * capitals (at least one digit), which some drivers give as their only code.
 */
export function isSqlState(code: string): boolean {
  return /^[0-9A-Z]{5}$/.test(code) && /\d/.test(code);
}
