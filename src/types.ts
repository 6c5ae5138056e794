/** Public types of fast-test-db. */

/** Which kind of server: PostgreSQL, or MySQL/MariaDB. The engine itself (what it knows and does) is src/engines/engine.ts's `Engine`. */
export type EngineName = 'postgres' | 'mysql';
/** @deprecated The name of an engine is `EngineName`; this older name stays for code that imports it. */
export type Engine = EngineName;
export type Flavor = 'postgres' | 'mysql' | 'mariadb';
export type ServerMode = 'auto' | 'embedded' | 'external' | 'container';

/**
 * - `worker` (default): one clone per worker, kept for every file that worker runs.
 * - `file`: a fresh clone for each test file (cheap on PostgreSQL: a file copy).
 * - `test`: one clone per worker, emptied before each test (reset()).
 */
export type Isolation = 'worker' | 'file' | 'test';

/** A runner worker's database, derived from the handoff (runners/shared/handoff.ts workerTarget). */
export interface WorkerTarget {
  name: string;
  url: string;
  worker: string;
  connection: ConnectionOptions;
}

/** How PostgreSQL 15+ clones a template: copying its files, or through the WAL (FAST_TEST_DB_CLONE_STRATEGY). */
export type CloneStrategy = 'file_copy' | 'wal_log';

/** A running server and how to reach it as admin. Serializable: it travels to worker processes in an env var. */
export interface ServerInfo {
  engine: EngineName;
  flavor: Flavor;
  /** Full version string, e.g. "18.1" or "10.11.19-MariaDB". */
  version: string;
  major: number;
  provider: 'embedded' | 'external' | 'container';
  /** True when fast-test-db started this server: we may tune it, and we stop it. */
  owned: boolean;
  /** True when durability is off (read back from the server, not assumed). */
  tuned: boolean;
  host: string;
  port: number;
  /** Unix socket directory (PostgreSQL) or socket path (MySQL), when the server has one. */
  socket?: string;
  user: string;
  password: string;
  /** The database admin connections use (postgres / mysql). */
  adminDatabase: string;
  /** For owned servers: the state directory that the keeper process watches. */
  stateDir?: string;
}

/** Connection options for one database, in the shape most drivers take. */
/** A part of a database's connection that an app's env name may receive (the `env` option). */
export type AppEnvRole = 'url' | 'host' | 'port' | 'user' | 'password' | 'database';

export interface ConnectionOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface ResetReport {
  /** Tables that had rows and were emptied. */
  emptied: string[];
  /** Sequences / AUTO_INCREMENT counters restarted. */
  restarted: string[];
  /**
   * Seeded tables (rows the template holds) that a test changed, or that emptying another table
   * cascaded into: emptied (so also listed in `emptied`) and filled again with the template's rows.
   * PostgreSQL: also the materialized views refreshed from the restored tables. The user's triggers
   * do not fire on the refill where the server lets us silence them (a warning says so where not).
   */
  restored: string[];
  ms: number;
}

export interface DescribeReport {
  engine: EngineName;
  flavor: Flavor;
  version: string;
  owned: boolean;
  provider: ServerInfo['provider'];
  tuned: boolean;
  /** Settings read back from the server: name -> value. */
  settings: Record<string, string>;
  /** Settings that differ from what a tuned server has: name -> { expected, actual }. */
  untuned: Record<string, { expected: string; actual: string }>;
}

/**
 * One test database, whoever made it: createTestDatabase(), a runner's testDatabase(), or an ORM
 * adapter (as its `database`).
 *
 * Disposal releases what this handle owns: `await using db = await createTestDatabase()` drops
 * the database at the end of the scope, because that database is the handle's own. A runner's
 * worker database belongs to the runner (every file of the worker uses it, and the runner drops
 * it when the run ends), so disposing its handle only closes the connections the handle holds,
 * as close() does.
 */
export interface TestDatabase extends AsyncDisposable {
  readonly name: string;
  readonly url: string;
  readonly connection: ConnectionOptions;
  readonly server: ServerInfo;
  /** The template this database was cloned from, and whether this call had to build it. */
  readonly template: { name: string; fingerprint: string; built: boolean };
  /** Empties every table that has rows and restarts sequences; respects foreign keys. */
  reset(): Promise<ResetReport>;
  /** Drops this database and clones it again from the template. */
  recreate(opts?: { force?: boolean }): Promise<void>;
  /** Drops this database. With `force`, connections still open to it are terminated first. */
  destroy(opts?: { force?: boolean }): Promise<void>;
  /** Reads the server's settings back and says whether it is really tuned. */
  describe(): Promise<DescribeReport>;
  /** Closes the connections this handle keeps (reset()'s, recreate()'s); the database stays. */
  close(): Promise<void>;
}

/** What `migrate` and `seed` are given besides the template's URL. */
export interface MigrateContext {
  /** The template database's name (the database `url` points at). */
  database: string;
  /** The server the template is on: engine, flavor, major, host, port, admin user, whether we own it. */
  server: ServerInfo;
  /** The template database as driver options: host, port, user, password, database. */
  connection: ConnectionOptions;
}

/**
 * A `migrate` or `seed` function: builds into the empty template database `url` points at (also
 * given as `ctx.connection`), and resolves when done. It must close what it opened.
 */
export type MigrateFn = (url: string, ctx: MigrateContext) => Promise<void>;

/**
 * A module of the project run as `migrate` or `seed` in a child `node --import tsx` process (tsx is
 * needed for TypeScript): its `export` (default 'default') is called `(url, ctx)` when it is a
 * function, otherwise the module's own top-level code does the work, with the URL in DATABASE_URL.
 */
export interface MigrateModule {
  /** Path relative to the working directory, e.g. './test/seed.ts'. */
  module: string;
  /** The export to call. Default 'default'; a module without it just runs. */
  export?: string;
}

/**
 * How the template is built (`migrate`) or filled (`seed`): a function `(url, ctx) => Promise<void>`;
 * a command (`'npm run db:migrate'`) run in the working directory with the template's URL in
 * DATABASE_URL and in every name of `envVar`, its output shown when it fails; or a module of the
 * project (`{ module: './db/migrate.ts' }`). docs/templates.md says what each one's fingerprint covers.
 */
export type Migrate = MigrateFn | string | MigrateModule;

export interface TestDatabaseOptions {
  /** 'postgres' (default) or 'mysql'. Inferred from `url` when that is given. Env: FAST_TEST_DB_ENGINE. */
  engine?: EngineName;
  /** Where the server comes from. Default 'auto': `url` if given, otherwise embedded. Env: FAST_TEST_DB_SERVER_MODE. */
  server?: ServerMode;
  /** Admin URL of a server we do not own. Env: FAST_TEST_DB_URL (an app's TEST_DATABASE_URL is never read: pass it here to use it). */
  url?: string;
  /** Allow `url` to point at a non-loopback host. Env: FAST_TEST_DB_ALLOW_REMOTE=1. */
  allowRemote?: boolean;
  /**
   * Builds the schema into the template database, once per fingerprint: a function
   * `(url, ctx) => Promise<void>` (ctx: `{ database, server, connection }`, MigrateContext), a
   * command (`'npm run migrate'`) run in the working directory with the template's URL in
   * DATABASE_URL (and in `envVar`), or a module `{ module: './db/migrate.ts', export?: 'default' }`.
   * Without `migrationFiles` or a `cacheKey` saying what it reads, the template is rebuilt every run.
   */
  migrate?: Migrate;
  /**
   * Fills the template after `migrate` (or after the adapter's schema), in the same build: the same
   * three forms. A module's relative imports and a command's named files and package.json script
   * are part of the fingerprint without listing them (docs/templates.md).
   */
  seed?: Migrate;
  /** How long `migrate` may run before it fails with MIGRATION_TIMEOUT. Default 5 min. Env: FAST_TEST_DB_MIGRATE_TIMEOUT_MS. */
  migrateTimeoutMs?: number;
  /** Anything that identifies the schema (e.g. an ORM's DDL hash); part of the fingerprint. */
  cacheKey?: string;
  /** Globs (relative to cwd) whose file contents are part of the fingerprint. */
  migrationFiles?: string | string[];
  /** This worker's id. Default: detected from the test runner's env vars, else `p<pid>`. Env: FAST_TEST_DB_WORKER. */
  worker?: string;
  /** Run identity so that many CI jobs can share one server. Default: from CI env vars. Env: FAST_TEST_DB_RUN_ID. */
  runId?: string;
  /** CI shard, part of the name. Env: FAST_TEST_DB_SHARD. */
  shard?: string;
  /** Extra name part, e.g. a test file for per-file isolation. */
  suffix?: string;
  /** Name prefix of everything we create. Default 'ftdb'. Env: FAST_TEST_DB_PREFIX. */
  prefix?: string;
  /** Convert template tables to UNLOGGED (PostgreSQL). Default 'auto': on where the server is not tuned. */
  unlogged?: boolean | 'auto';
  /** Keep an owned server alive across runs; it stops itself after `idleTimeoutMs` with no client. Env: FAST_TEST_DB_REUSE=1. */
  reuse?: boolean;
  idleTimeoutMs?: number;
  /**
   * How long a server we started (and do not reuse) outlives its last client, so that the next test
   * file or a watch re-run joins it and its template. Default 5000. Env: FAST_TEST_DB_GRACE_MS.
   */
  graceMs?: number;
  /** Directory with the server binaries (postgres/initdb, or mysqld/mariadbd). Env: FAST_TEST_DB_BIN_DIR. */
  binDir?: string;
  /** Where owned servers keep their data. Default /dev/shm, else the OS temp dir. Env: FAST_TEST_DB_DATA_ROOT. */
  dataRoot?: string;
  /**
   * Embedded PostgreSQL: when the server stops cleanly after a template from `migrationFiles` or a
   * `cacheKey` was built, keep a copy of its data directory in `cacheDir`, and start the next
   * server from it: no initdb, no migrations (docs/warm-start.md). Default on; `true` saves at every
   * clean stop, `false` never. Env: FAST_TEST_DB_DATA_CACHE=1 / 0.
   */
  cacheDataDir?: boolean;
  /** Where cached data directories go. Default node_modules/.cache/fast-test-db. Env: FAST_TEST_DB_CACHE_DIR. */
  cacheDir?: string;
  /**
   * Embedded PostgreSQL: the locale of the data directory (collation, case mapping, character
   * classes), e.g. 'en_US.UTF-8', 'C.UTF-8', 'C', or 'icu:en-US' for ICU collation (PostgreSQL 15+).
   * Default: en_US.UTF-8 when this machine has it, else C.UTF-8, as the official image and the
   * distribution packages give. Env: FAST_TEST_DB_LOCALE.
   */
  locale?: string;
  /** max_connections of owned servers. Default 300. */
  maxConnections?: number;
  /** Templates kept per prefix; older ones are dropped. Default 3. */
  keepTemplates?: number;
  /** MySQL/MariaDB only: InnoDB buffer pool and redo log sizes of owned servers, e.g. '512M'. */
  bufferPoolSize?: string;
  redoLogSize?: string;
  /** Container image for server: 'container'. */
  image?: string;
  /**
   * On a server started here: a numbered runner worker's thread and its database sessions share
   * one CPU, the worker's own (src/runners/shared/cpu-pairing.ts). Default off (see docs/how-it-works.md for the figures). Env: FAST_TEST_DB_CPU_PAIRING=1.
   */
  cpuPairing?: boolean;
}

/**
 * What a runner's global setup hands to its workers (src/runners/shared/global.ts): the run, the
 * server, the template, and what a worker derives its database from. Serializable: it travels to
 * worker processes in an env var (src/options/handoff.ts).
 */
export interface Handoff {
  v: 1;
  run: string;
  engine: EngineName;
  prefix: string;
  shard?: string;
  server: ServerInfo;
  template: string;
  /** The template's fingerprint (what its name is made from), for TestDatabase.template. */
  fingerprint: string;
  /** Tables with rows in the template; reset() keeps them. */
  seeded: string[];
  isolation: Isolation;
  /** Env vars that receive the worker's URL (DATABASE_URL by default). */
  envVars: string[];
  /** The `env` option: the app's env names and the part of the worker's connection each receives. */
  appEnv?: Record<string, AppEnvRole>;
  /** The `login` option: the user and password the workers' URLs and connections carry instead of the admin's. */
  login?: { user: string; password: string };
  /** The URL of a database named NAME_SLOT (src/runners/shared/handoff.ts); workers substitute their own name. */
  urlPattern: string;
  /** The runner's main process: the workers' databases belong to its run while it lives (src/core/users.ts). */
  main?: number;
  /** A directory private to this run, for the workers' "already cloned" notes. */
  dir: string;
  /**
   * CPU pairing (src/runners/shared/cpu-pairing.ts): the CPUs the runner's process could use, worker
   * N's being the Nth; absent when pairing is off for this run.
   */
  cpus?: number[];
  /**
   * Set while the server is still starting (src/runners/shared/ready.ts): the file the global setup
   * writes the finished handoff to. Until then `server` holds only how to reach it, and `template`
   * and `seeded` are empty.
   */
  pending?: string;
  /** The pid of the process that writes `pending`. */
  owner?: number;
  /** How the workers clone the template, as the run was told (absent: the default, file_copy). */
  cloneStrategy?: CloneStrategy;
}

/** What an ORM adapter contributes: how to build the schema and what identifies it. */
export interface TemplateSource {
  migrate?: Migrate;
  /** Run after `migrate` in the same build (an adapter's seed option); a config's own `seed` wins. */
  seed?: Migrate;
  cacheKey?: string;
  migrationFiles?: string | string[];
  /** The engine the schema is written for, when the adapter knows it: it picks the server, and a conflicting `engine` is an error. */
  engine?: EngineName;
}

/** The `login` option: the user and password an app's code connects with, and its database's name. */
export interface AppLoginOption {
  user: string;
  password: string;
  database?: string;
}

export interface RunnerOptions {
  /** 'worker' (default): a clone per worker; 'file': a fresh clone per test file; 'test': reset() before each test. */
  isolation?: Isolation;
  /** Env var(s) the worker's URL is exported to, for the app to read. Default 'DATABASE_URL'. */
  envVar?: string | string[];
  /**
   * The app's own env names and the part of the worker's connection each receives, set in every
   * worker before test files load, and for a migrate or seed command the template's:
   * `{ DB_HOST: 'host', DB_PORT: 'port', DB_USERNAME: 'user', DB_PASSWORD: 'password', DB_DATABASE: 'database', DATABASE_URL: 'url' }`.
   */
  env?: Record<string, AppEnvRole>;
  /**
   * The login the app's code spells out, for code that never reads its connection from the env:
   * made on the run's server of ours, with every right on each worker's database, and handed out
   * in the workers' URLs and the `env` mapping. `database`: a database of that name, a clone of the
   * template made again each run, owned by the login, for code that names its database too (one
   * database for every worker: see docs/adopting.md). Refused on a server we do not own (`url`).
   */
  login?: AppLoginOption;
  /**
   * No line on stderr at the start of a run (which server, tuned or not) and no status line while
   * it starts. Default false. Env: FAST_TEST_DB_QUIET=1.
   */
  quiet?: boolean;
  /**
   * Keep the runner config's `maxWorkers: 1` or `fileParallelism: false`, which withFastTestDb
   * otherwise drops (each worker has its own database): for a suite serial for a reason of its own.
   * Default false. Env: FAST_TEST_DB_KEEP_SERIAL=1.
   */
  keepSerial?: boolean;
}

export interface FastTestDbConfig extends TestDatabaseOptions, RunnerOptions {
  /**
   * Schema source, usually from an ORM adapter; may be a function so that the ORM is loaded only
   * when a template has to be fingerprinted. Its fields fill in `migrate`/`cacheKey`/`migrationFiles`
   * where those are not given directly.
   */
  adapter?: TemplateSource | (() => TemplateSource | Promise<TemplateSource>);
}
