/**
 * The roles of an engine that speak SQL to a server, built by `Engine.load()` (engine.ts) once the
 * engine's driver is loaded: each its own interface, so that a caller names the roles it uses.
 */
import type { DescribeReport, ResetReport, ServerInfo } from '../types.js';
import type { Marker, OpenSession, TemplateState } from './marker.js';

// ---------------------------------------------------------------------------------------------
// Driver types (structural: pg and mysql2 stay optional peers)

/**
 * The little every role needs from a driver connection; each engine wraps its driver into its own
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

// ---------------------------------------------------------------------------------------------
// Roles that speak to a server. `C` is the engine's client: a role is only ever given
// connections its own Connector opened.

export interface Connector<C extends SqlClient = SqlClient> {
  /** Opens a connection; `database` defaults to the server's admin database. */
  connect(server: ServerInfo, database?: string): Promise<C>;
}

/** Server-wide named locks, so that racing processes build a template once. */
export interface Locks<C extends SqlClient = SqlClient> {
  /** Runs `fn` holding the lock named `key`. */
  withLock<T>(admin: C, key: string, fn: () => Promise<T>): Promise<T>;
  /** As withLock, without waiting: undefined, and `fn` not run, when another process holds the lock. */
  withFreeLock<T>(admin: C, key: string, fn: () => Promise<T>): Promise<T | undefined>;
}

/** Templates and the databases cloned from them. */
export interface TemplateStore<C extends SqlClient = SqlClient> {
  /**
   * Whether createEmpty() and clone() build under stagingName() and rename into place (PostgreSQL).
   * Engines without a database rename create the database and its marker in one statement instead.
   */
  readonly staged: boolean;
  /**
   * Whether a template must have no session to be cloned (PostgreSQL): what a migrate left open
   * is then closed and named in a warning (Inspector.openSessions).
   */
  readonly clonesNeedNoSessions: boolean;
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
}

/** The marker we write next to every database we create, and read before anything destructive. */
export interface MarkerStore<C extends SqlClient = SqlClient> {
  /** Replaces the marker of our database `name` (a template's leases), in one statement. */
  writeMarker(admin: C, name: string, marker: Marker): Promise<void>;
  /** undefined: no such database; null: it exists and is not ours. */
  readMarker(admin: C, name: string): Promise<Marker | null | undefined>;
  /** Every database carrying our marker whose name starts with `prefix`. */
  listOurs(admin: C, prefix: string): Promise<Array<{ name: string; marker: Marker }>>;
  /** Every database named by stagingName(), marked or not (a creation killed before its marker was written). */
  listStaging(admin: C): Promise<string[]>;
}

export interface Resetter<C extends SqlClient = SqlClient> {
  /**
   * Empties tables with rows and restarts counters; `db` is connected to database `name`, and is
   * reset()'s own connection: the resetter may leave settings on its session.
   * Tables in `keep` (the template's seeded tables) are left as they are.
   */
  reset(db: C, name: string, keep: readonly string[]): Promise<ResetReport>;
}

/** What a server is and who is connected to it. */
export interface Inspector<C extends SqlClient = SqlClient> {
  describe(admin: C, server: ServerInfo): Promise<DescribeReport>;
  /** Every other client session on the server (not the server's own threads), for `stop` to say who is connected. */
  sessions(admin: C): Promise<OpenSession[]>;
  /** The sessions connected to `name` other than the caller's: what a migrate left open, to name in a warning. */
  openSessions(admin: C, name: string): Promise<OpenSession[]>;
  /**
   * The OS tasks serving the sessions connected to `name`: backend processes (PostgreSQL) or
   * threads (MariaDB), for CPU pairing. Only asked of servers started here; [] when the server
   * does not say (MySQL).
   */
  sessionTasks(admin: C, name: string): Promise<number[]>;
}

/** Logins for apps whose credentials are fixed (`fast-test-db start --user … --password …`). */
export interface Logins<C extends SqlClient = SqlClient> {
  /** On a server we own only: a login `user` with `password` that may create databases, made or updated. */
  createLogin(admin: C, user: string, password: string): Promise<void>;
  /** Hands database `name` to `user` (PostgreSQL: its owner, so it may create tables in it). */
  grantDatabase(admin: C, name: string, user: string): Promise<void>;
  /**
   * Gives `user` every right on what database `name` holds (PostgreSQL: makes it the owner of the
   * schemas, tables, sequences, routines and types), so that the clones of a template carry them:
   * what a migration made is the admin's. A template that takes no connections takes one for this.
   */
  grantContents(admin: C, server: ServerInfo, name: string, user: string): Promise<void>;
}

/** Per-database, reversible speed settings, for databases we create on servers we do not own. */
export interface DatabaseTuner<C extends SqlClient = SqlClient> {
  tuneDatabase(admin: C, name: string): Promise<void>;
}

/**
 * recreate() off the hot path: the used database renamed aside and a spare clone renamed into
 * place, in one transaction (a catalog update, no checkpoint). Renames need the connections to the
 * renamed databases ended first, so both live in this one role.
 */
export interface Swap<C extends SqlClient = SqlClient> {
  /** Renames databases that have no connections, all or none, in order; fails when one has connections. */
  renameDatabases(admin: C, renames: Array<[from: string, to: string]>): Promise<void>;
  /** Ends every other connection to `name`. */
  endConnections(admin: C, name: string): Promise<void>;
}

/** Every role that speaks to a server, built by Engine.load() with the engine's driver loaded. */
export interface ServerRoles<C extends SqlClient = SqlClient> {
  readonly connector: Connector<C>;
  readonly locks: Locks<C>;
  readonly templates: TemplateStore<C>;
  readonly markers: MarkerStore<C>;
  readonly resetter: Resetter<C>;
  readonly inspector: Inspector<C>;
  readonly logins: Logins<C>;
  readonly tuner: DatabaseTuner<C>;
  /** null: the engine has no database rename (MySQL); recreate() drops, then clones. */
  readonly swap: Swap<C> | null;
}

/** What the roles depend on that the caller resolved (options), passed in instead of read here. */
export interface LoadOptions {
  /**
   * How CREATE DATABASE copies a template on PostgreSQL 15+. FILE_COPY (default) copies the files
   * (one checkpoint, cheap with fsync off); WAL_LOG, 15's default, writes every block to WAL.
   */
  cloneStrategy?: 'file_copy' | 'wal_log';
}
