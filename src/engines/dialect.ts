/**
 * The contract every engine implements. The core (template cache, test databases, cleanup)
 * speaks only to this interface; an engine's folder (postgres/, mysql/) holds all of its SQL,
 * one file per role, and index.ts builds the dialect for an engine.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { DescribeReport, Engine, ResetReport, ServerInfo } from '../types.js';
import { invocationPid, type Lease } from '../core/users.js';

/**
 * The little the core needs from a driver connection; each engine wraps its driver into its own
 * client type (postgres/client.ts, mysql/client.ts), which adds what that engine's SQL needs.
 */
export interface SqlClient {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  /**
   * Whether this connection keeps the process alive. An idle reset connection must not keep a
   * test process running on its own; one in the middle of a reset must.
   */
  hold(on: boolean): void;
}

/** What we write next to every database we create, and check before anything destructive. */
export interface Marker {
  tool: 'fast-test-db';
  kind: 'template' | 'database';
  /** ISO timestamp of creation, for `clean --older-than`. */
  created: string;
  run?: string;
  fingerprint?: string;
  /** Creating process, to tell a live owner from a crashed one. */
  pid?: number;
  /**
   * The invocation the database belongs to (src/users.ts): a runner's main process, whose workers
   * come and go, else the creating process.
   */
  invocation?: number;
  host?: string;
  /** A clone: the template it was cloned from, which stays while the clone's invocation lives. */
  template?: string;
  /** A template: the invocations using it (src/users.ts); `clean` and eviction leave it while one lives. */
  leases?: Lease[];
  /** Tables that had rows when the template was completed (migration history, reference data). */
  seeded?: string[];
  /** PostgreSQL: sequences the template had used, name -> last_value, for reset() to restore. */
  sequences?: Record<string, string>;
  /** PostgreSQL: rows of each seeded table in the template, for reset() to see a seeded table changed. */
  seedRows?: Record<string, number>;
  /**
   * PostgreSQL: a transaction id taken when the template was completed. Every row the template holds
   * was written before it; a row written after it (a test's INSERT or UPDATE) means the table changed.
   */
  seedXid?: string;
  /** PostgreSQL: materialized views the template holds WITH NO DATA, for reset() to keep them so. */
  unpopulated?: string[];
  /** PostgreSQL: the template's large objects (oids); reset() unlinks any other. */
  largeObjects?: string[];
  /** Where migrate's source text was hashed instead of its inputs: the run this template is scoped to. */
  scope?: string;
}

/**
 * `unmarked`: a database of that name exists without our template marker. Outside the build lock that
 * may be another process between CREATE DATABASE and writing the marker; under the lock it is not ours.
 */
export type TemplateState = 'missing' | 'unmarked' | 'incomplete' | 'complete';

/**
 * One engine. `C` is the client its connect() returns and every other method takes: a dialect
 * is only ever given connections it opened itself. The core holds a `Dialect` (any client) and
 * passes back what connect() gave it.
 */
export interface Dialect<C extends SqlClient = SqlClient> {
  readonly engine: Engine;
  /**
   * Whether clone() and createEmpty() build under stagingName() and rename into place (PostgreSQL).
   * Engines without a database rename create the database and its marker in one statement instead.
   */
  readonly staged: boolean;
  /** Opens a connection; `database` defaults to the server's admin database. */
  connect(server: ServerInfo, database?: string): Promise<C>;
  /** A URL a user's driver or ORM accepts for `database`. */
  url(server: ServerInfo, database: string): string;
  /** Runs `fn` holding a server-wide lock named `key`, so racing processes build a template once. */
  withLock<T>(admin: C, key: string, fn: () => Promise<T>): Promise<T>;
  /** As withLock, without waiting: undefined, and `fn` not run, when another process holds the lock. */
  withFreeLock<T>(admin: C, key: string, fn: () => Promise<T>): Promise<T | undefined>;
  templateState(admin: C, name: string): Promise<TemplateState>;
  /** An empty database carrying `marker`, ready for migrations. */
  createEmpty(admin: C, name: string, marker: Marker): Promise<void>;
  /**
   * After migrations: optional UNLOGGED conversion, capture what clones need, record the tables that
   * have rows as `seeded` in the template's marker, then mark it complete.
   */
  completeTemplate(admin: C, server: ServerInfo, name: string, opts: { unlogged: boolean }): Promise<void>;
  /** A new database `name` with the template's schema and rows; `name` never exists without `marker`. */
  clone(admin: C, server: ServerInfo, template: string, name: string, marker: Marker): Promise<void>;
  /** Drops `name`. Callers check the marker first. */
  drop(admin: C, name: string, opts: { force?: boolean }): Promise<void>;
  /** Replaces the marker of our database `name` (a template's leases), in one statement. */
  writeMarker(admin: C, name: string, marker: Marker): Promise<void>;
  /** undefined: no such database; null: it exists and is not ours. */
  readMarker(admin: C, name: string): Promise<Marker | null | undefined>;
  /** Every database carrying our marker whose name starts with `prefix`. */
  listOurs(admin: C, prefix: string): Promise<Array<{ name: string; marker: Marker }>>;
  /** Every database named by stagingName(), marked or not (a creation killed before its marker was written). */
  listStaging(admin: C): Promise<string[]>;
  /**
   * On a server we own only: a login `user` with `password` that may create databases, made or
   * updated, for apps whose credentials are fixed (`fast-test-db start --user … --password …`).
   */
  createLogin(admin: C, user: string, password: string): Promise<void>;
  /** Hands database `name` to `user` (PostgreSQL: its owner, so it may create tables in it). */
  grantDatabase(admin: C, name: string, user: string): Promise<void>;
  /** Per-database, reversible speed settings for servers we do not own. */
  tuneDatabase(admin: C, name: string): Promise<void>;
  /**
   * Empties tables with rows and restarts counters; `db` is connected to database `name`.
   * Tables in `keep` (the template's seeded tables) are left as they are.
   */
  reset(db: C, name: string, keep: readonly string[]): Promise<ResetReport>;
  describe(admin: C, server: ServerInfo): Promise<DescribeReport>;
  /** Every other client session on the server (not the server's own threads), for `stop` to say who is connected. */
  sessions(admin: C): Promise<OpenSession[]>;

  // recreate() off the hot path (src/recreate.ts); engines without them drop, then clone.
  /**
   * Renames databases that have no connections (PostgreSQL), all or none, in order; fails when
   * one has connections.
   */
  renameDatabases?(admin: C, renames: Array<[from: string, to: string]>): Promise<void>;
  /** Ends every other connection to `name`. */
  endConnections?(admin: C, name: string): Promise<void>;
  /**
   * The sessions connected to `name` other than the caller's (PostgreSQL, where a template must have
   * none to be cloned): what a migrate left open, to name in a warning.
   */
  openSessions?(admin: C, name: string): Promise<OpenSession[]>;
  /**
   * The OS tasks serving the sessions connected to `name`: backend processes (PostgreSQL) or
   * threads (MariaDB), for CPU pairing (src/cpu-pairing.ts). Only asked of servers started here.
   */
  sessionTasks?(admin: C, name: string): Promise<number[]>;
}

/** A session connected to a server, as a warning or `fast-test-db stop` names it. */
export interface OpenSession {
  /** The server process serving it (PostgreSQL); MySQL/MariaDB: the connection id. */
  pid: number;
  user?: string;
  database?: string;
  application?: string;
  /** Where it connects from: address:port, or 'local socket'. */
  client?: string;
  state?: string;
  query?: string;
}

export function newMarker(kind: Marker['kind'], extra: Partial<Marker> = {}): Marker {
  return {
    tool: 'fast-test-db',
    kind,
    created: new Date().toISOString(),
    pid: process.pid,
    invocation: invocationPid(),
    host: hostname(),
    ...extra,
  };
}

export const MARKER_TAG = 'fast-test-db';

export function encodeMarker(m: Marker): string {
  return `${MARKER_TAG} ${JSON.stringify(m)}`;
}

export function decodeMarker(text: string | null | undefined): Marker | null {
  if (!text?.startsWith(MARKER_TAG + ' ')) return null;
  try {
    const m = JSON.parse(text.slice(MARKER_TAG.length + 1)) as Marker;
    return m.tool === 'fast-test-db' ? m : null;
  } catch {
    return null;
  }
}

/**
 * The name a database is created under before it is marked and renamed into place: a database the
 * library is creating is recognisable as ours at every instant, by this name until the marker is
 * written, by the marker after. `<prefix>__new_<12 hex of the final name><8 hex check>`: our own
 * names never hold `__` (databaseName joins non-empty parts with one `_`), and the check digits,
 * a hash of the rest, make it a name no one else would choose. Deterministic, so that the next
 * process wanting the same final name finds what a killed one left.
 */
export function stagingName(name: string): string {
  const prefix = name.split('_')[0]!.slice(0, 16);
  const a = createHash('sha256').update(name).digest('hex').slice(0, 12);
  return `${prefix}__new_${a}${stagingCheck(a)}`;
}

function stagingCheck(a: string): string {
  return createHash('sha256').update(`fast-test-db staging ${a}`).digest('hex').slice(0, 8);
}

export function isStagingName(name: string): boolean {
  const m = /^[a-z][a-z0-9]{0,15}__new_([0-9a-f]{12})([0-9a-f]{8})$/.exec(name);
  return m !== null && stagingCheck(m[1]!) === m[2];
}

/** True when the marker's process ran on this machine and is gone: what it was creating is a leftover. */
export function ownerGone(marker: Pick<Marker, 'host' | 'pid'>, alive: (pid: number) => boolean): boolean {
  return marker.host === hostname() && marker.pid !== undefined && marker.pid !== process.pid && !alive(marker.pid);
}
