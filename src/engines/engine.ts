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
import type { DescribeReport, EngineName, Flavor, ServerInfo, TestDatabaseOptions } from '../types.js';
import type { LoadOptions, ServerRoles, SqlClient } from './roles.js';

export type { EngineName };
export type {
  Connector,
  DatabaseTuner,
  Inspector,
  LoadOptions,
  Locks,
  Logins,
  MarkerStore,
  Resetter,
  ServerRoles,
  SqlClient,
  Swap,
  TemplateStore,
} from './roles.js';

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
