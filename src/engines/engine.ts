/**
 * The contract every engine implements, split by role as Kysely splits a dialect into driver,
 * compiler, adapter and introspector: an `Engine` is a small table of facts that need no driver
 * (names, URLs, quoting, error codes, tuning, server traits, monitor) and a factory, `load()`, of
 * the roles that speak SQL to a server (connect, locks, template store, markers, reset, inspect,
 * logins, per-database tuning, the rename swap). Each role is its own interface, so that a caller
 * states which roles it uses; a capability one engine lacks is a role that is `null`, never an
 * optional method a caller asserts with `!`. Outside src/engines, code asks these roles instead
 * of branching on the engine's name.
 */
import type { EmbeddedServer } from '../server/os/launch.js';
import type { DescribeReport, EngineName, Flavor, ResetReport, ServerInfo, TestDatabaseOptions } from '../types.js';
import type { Marker, OpenSession, TemplateState } from './marker.js';

export type { EngineName };

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
   * Empties tables with rows and restarts counters; `db` is connected to database `name`.
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

// ---------------------------------------------------------------------------------------------
// Facts that need no driver

/** How URLs of this engine look, and what a URL that leaves a part out means. */
export interface Urls {
  /** The schemes a URL of this engine may have (`postgres:`, `postgresql:`), the first the one we write. */
  readonly schemes: readonly string[];
  /** The URL a user's driver or ORM accepts for `database` on `server`. */
  url(server: Pick<ServerInfo, 'user' | 'password' | 'host' | 'port'>, database: string): string;
  /**
   * What a URL without port, user, password or database means, as the engine's own clients read
   * it (libpq reads PGUSER and PGPASSWORD from `env`).
   */
  defaults(env: Readonly<Record<string, string | undefined>>): {
    port: number;
    user: string;
    password: string;
    adminDatabase: string;
  };
  /** The flavor a URL scheme names (`mariadb:` names MariaDB), undefined for another engine's scheme. */
  flavorOfScheme(scheme: string): Flavor | undefined;
  /** Whether the engine's driver takes a Unix socket's directory as its `host` (node-postgres). */
  readonly socketAsHost: boolean;
}

/** How this engine's SQL spells names and strings. */
export interface Quoting {
  quoteIdent(name: string): string;
  quoteLiteral(value: string): string;
  /** The longest database name the engine accepts, in bytes. */
  readonly maxNameBytes: number;
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

/** This engine's error codes and the fixes its messages give. */
export interface ErrorCodes {
  /** Whether `code` is one of this engine's (a SQLSTATE, an ER_* name). */
  owns(code: string): boolean;
  /** The codes this engine's driver gives, and what each means. */
  readonly kinds: Readonly<Record<string, DriverErrorKind>>;
  /** The fix a message gives, in this engine's words. */
  readonly fixes: Readonly<Record<'auth' | 'permission' | 'connections' | 'inUse', string>>;
  /**
   * What a client of another engine says when it reaches a server of this one (a migrate written
   * for the other engine): protocol confusion that names neither engine.
   */
  readonly foreignClient: RegExp;
}

/**
 * How this engine's INSERT is spelled and what it answers, for the adapters' fast inserts: read on
 * their hot path, so it needs no driver.
 */
export interface Inserts {
  /** The n-th bind parameter (1-based), as the engine's drivers bind it. */
  param(n: number): string;
  /** The VALUES part of an INSERT of `rows` rows that give no column: every value its default. */
  defaultRows(rows: number): string;
  /** Most such rows one statement carries. */
  readonly defaultRowsPerStatement: number;
  /** Whether every server of the engine answers INSERT … RETURNING. */
  readonly returning: boolean;
  /** Whether a server of this flavor answers INSERT … RETURNING (MariaDB does, MySQL does not). */
  returningOn(flavor: Flavor): boolean;
  /** What qualifies a table name: PostgreSQL's schema, MySQL's database. */
  readonly tableNamespace: 'schema' | 'database';
  /**
   * Whether single-row inserts started together may go out as one multi-row INSERT, a refused
   * batch sent again row by row: not on MySQL, where a multi-row INSERT outside strict mode turns
   * a NULL for a NOT NULL column into a warning, and its keys follow auto_increment_increment.
   */
  readonly coalesce: boolean;
  /** Whether timestamp literals carry their zone (`+00:00`); MySQL's DATETIME takes none. */
  readonly zonedTimestamps: boolean;
  /** Whether booleans bind as booleans; MySQL's are written 1 and 0. */
  readonly nativeBoolean: boolean;
  /** One-parameter query: a row when that table exists in the connection's current schema (database). */
  readonly tableExistsSql: string;
}

/** The non-durable settings, as far as anything outside the engine's own provisioning needs them. */
export interface Tuning {
  /** The settings describe() and `doctor` read back to prove a server is really tuned, and their tuned values. */
  readonly expected: Readonly<Record<string, string>>;
  /** The command-line flags that turn `untuned` settings into tuned ones, for `doctor` to print. */
  flags(untuned: DescribeReport['untuned']): string[];
  /** How to start `report`'s server with `flags`, in a few lines, for `doctor` to print. */
  fix(report: DescribeReport, flags: string[]): string;
  /**
   * Whether template tables become UNLOGGED when the server is not tuned and the user chose
   * nothing (`unlogged: 'auto'`): only engines with unlogged tables.
   */
  readonly unloggedWhenUntuned: boolean;
}

/** How this engine's server process runs, for the code that starts, watches and stops one. */
export interface ServerTraits {
  /** The signal that stops the server cleanly and fast (PostgreSQL: SIGINT, its fast shutdown). */
  readonly stopSignal: 'SIGINT' | 'SIGTERM';
  /**
   * Whether every session is served by an OS process of its own, a child of the server's main
   * process that names its database in its title (PostgreSQL's back-ends): the tasks serving a
   * database are then found from that process, without a connection (CPU pairing).
   */
  readonly sessionsAreProcesses: boolean;
  /** Whether an embedded server can start from a cached copy of a data directory (`start --data-cache`). */
  readonly dataCache: boolean;
  /** What OpenSession.pid is: PostgreSQL's server process, MySQL's connection id. */
  readonly sessionIdName: string;
  /**
   * Whether a server of `flavor` names the OS task serving each session (Inspector.sessionTasks),
   * for CPU pairing: MySQL has no PROCESSLIST.TID, and ours runs without performance_schema.
   */
  namesSessionTasks(flavor: Flavor): boolean;
}

/** What each engine gives the monitor: a reading of its counters, and the change between two. */
export interface Sampler<Reading = unknown, Line extends MonitorLine = MonitorLine> {
  /** The server in a few words, e.g. "PostgreSQL 17". */
  label: string;
  take(): Promise<Reading>;
  diff(prev: Reading, cur: Reading): Line;
}

/** One monitor line: the change since the previous reading, with warnings in plain words. */
export interface MonitorLine {
  engine: EngineName;
  warnings: string[];
}

export interface Monitor {
  /** A sampler reading the counters on `client`, a connection of its own. */
  sampler(client: SqlClient): Promise<Sampler>;
  /** One line of text for a terminal. */
  format(line: MonitorLine): string;
  /** What the summary after the last line adds about `lines` (a peak), '' for nothing. */
  summary(lines: readonly MonitorLine[]): string;
}

/** A container of this engine's official image, started tuned (src/server/providers/container.ts runs it). */
export interface ContainerDefinition {
  image: string;
  command: string[];
  env: Record<string, string>;
  /** Mount point -> tmpfs options: the data never touches a disk. */
  tmpfs: Record<string, string>;
  port: number;
  readyLog: RegExp;
  readyLogTimes?: number;
  server: Pick<ServerInfo, 'engine' | 'flavor' | 'user' | 'password' | 'adminDatabase'>;
  /** Settings that depend on the version the running server reports, applied once it answers. */
  settle?(admin: SqlClient, version: string): Promise<void>;
}

/**
 * Where this engine's servers of our own come from, each loaded only when wanted: the binaries on
 * this machine (<engine>/embedded.ts) or the official image (<engine>/container.ts).
 */
export interface Provisioning {
  /** `engine`: the engine asking, so that its provisioning reaches the engine's facts and roles without importing them back. */
  embedded(): Promise<{ embeddedServer(settings: EmbeddedSettings, engine: Engine): EmbeddedServer }>;
  container(): Promise<{ containerDefinition(options: TestDatabaseOptions, image: string | undefined): ContainerDefinition }>;
}

export type CheckStatus = 'ok' | 'info' | 'warn' | 'fail';

/** One finding of `fast-test-db doctor`. */
export interface DoctorCheck {
  id: string;
  status: CheckStatus;
  title: string;
  detail?: string;
  /** What to do, when status is warn or fail. */
  fix?: string;
}

/**
 * What finding an engine's server binaries reads of the entry's context (options/context.ts): the
 * binDir resolved there, and the entry's environment, whose PATH is searched and whose library
 * path the binaries run with. Declared here by shape: the engines stand below the options.
 */
export interface BinarySettings {
  readonly resolved: { readonly binDir: string | undefined };
  readonly env: Readonly<NodeJS.ProcessEnv>;
}

/** What an embedded server's provisioning reads of the entry's context, all of it resolved there. */
export interface EmbeddedSettings extends BinarySettings {
  /** The options as given, for what is not resolved (maxConnections, bufferPoolSize, redoLogSize). */
  readonly options: Readonly<TestDatabaseOptions>;
  readonly resolved: BinarySettings['resolved'] & {
    readonly locale: string | undefined;
    readonly runAs: string;
    readonly initdbCache: boolean;
    readonly cacheDataDir: 'always' | 'built' | 'off';
  };
  /** The project's cache directory (initdb output, warm copies), absolute: the options' cacheRoot. */
  readonly cacheRoot: string;
}

/** What the engine's doctor checks are told: where binaries are looked for, the locale chosen, whom servers run as. */
export interface DoctorInputs extends BinarySettings {
  readonly resolved: BinarySettings['resolved'] & { readonly locale: string | undefined; readonly runAs: string };
}

/** What `doctor` asks of this engine. */
export interface EngineDoctor {
  /** What this machine offers for our own servers of this engine, the first check whether its server binaries are here. */
  local(inputs: DoctorInputs): Promise<DoctorCheck[]>;
  /** Where a server `doctor` reached keeps its data, and whether the user may create databases (undefined: not known). */
  storage(admin: SqlClient, report: DescribeReport): Promise<{ dataDirectory?: string; canCreate?: boolean }>;
  /** The fix for a user who may not create databases. */
  rightsFix(user: string): string;
}

/** One engine: its facts, and the factory of the roles that speak to a server. */
export interface Engine {
  readonly name: EngineName;
  /** How messages name the engine ("PostgreSQL", "MySQL/MariaDB"). */
  readonly label: string;
  /** The names `--engine` accepts for it. */
  readonly aliases: readonly string[];
  /** Its flavors, the first the one a server is taken for until it says more. */
  readonly flavors: readonly Flavor[];
  /** How messages name each flavor of it. */
  readonly flavorLabels: Readonly<Partial<Record<Flavor, string>>>;
  /** The flavor of a server whose version string (`SELECT VERSION()`, a binary's --version) is `version`. */
  flavorOfVersion(version: string): Flavor;
  readonly urls: Urls;
  readonly quoting: Quoting;
  readonly errors: ErrorCodes;
  readonly tuning: Tuning;
  readonly server: ServerTraits;
  readonly monitor: Monitor;
  readonly inserts: Inserts;
  readonly provisioning: Provisioning;
  /** The databases the server itself and apps keep (never handed out, never created by us). */
  readonly systemDatabases: readonly string[];
  /** Loaded only by `doctor`. */
  doctor(): Promise<EngineDoctor>;
  /**
   * The roles that speak to a server, with the engine's driver loaded: a missing driver is
   * PEER_MISSING here, before any server starts. One set per process and options (the MySQL
   * roles cache template captures).
   */
  load(options?: LoadOptions): Promise<ServerRoles>;
}
