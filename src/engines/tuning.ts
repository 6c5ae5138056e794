/**
 * Every non-durable setting fast-test-db applies, in one place. They are only ever passed as
 * command-line flags to servers we start ourselves (embedded or container), so they can never
 * leak into a config file that reaches production. Servers we do not own get only the
 * per-database, reversible settings at the bottom.
 */
import { FastTestDbError } from '../errors.js';

/** max_connections of the servers we start, both engines: room for many workers, each with a pool. */
export const DEFAULT_MAX_CONNECTIONS = 300;

/** PostgreSQL server settings for a throwaway server (`-c name=value`). */
export function postgresSettings(opts: { maxConnections: number; major: number }): Record<string, string> {
  return {
    // Durability off: a crash loses the data, which a test server throws away anyway.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    // Minimal WAL: nothing replicates from a test server, and CREATE DATABASE/COPY write less.
    wal_level: 'minimal',
    max_wal_senders: '0',
    // Checkpoints only when we ask for one (FILE_COPY clones do): no stalls mid-run.
    max_wal_size: '8GB',
    checkpoint_timeout: '1d',
    // Old WAL segments kept for reuse after a checkpoint: two, not the default five. They are
    // copied with the data directory into the warm cache (81 MB of a 144 MB copy here), and a
    // throwaway server's few checkpoints gain nothing from them.
    min_wal_size: '32MB',
    // Many workers, each with an ORM pool, plus our admin connections.
    max_connections: String(opts.maxConnections),
    // Short-lived tests gain nothing from background vacuum/analyze or JIT compilation.
    autovacuum: 'off',
    jit: 'off',
    // Dynamic shared memory (parallel query, hash joins) as files in the data directory instead of
    // /dev/shm/PostgreSQL.* segments: a server killed with SIGKILL leaves nothing outside the
    // data directory, which goes with the server. The data directory is on tmpfs, so this is still
    // memory (measured: no difference in clone or parallel-query time).
    dynamic_shared_memory_type: 'mmap',
    // Quiet logs; errors still reach the keeper's log file.
    log_min_messages: 'warning',
    log_checkpoints: 'off',
    ...(opts.major >= 15 ? { log_startup_progress_interval: '0' } : {}),
  };
}

/**
 * Flags passed to `initdb` for a data directory on tmpfs. `--no-sync` and trust change nothing a
 * query can see; the locale decides collation, case mapping and character classes, so it is the
 * one production gives (see defaultPostgresLocale), never a faster `C`.
 */
export function postgresInitdbFlags(locale: string): string[] {
  const icu = /^icu:(.+)$/i.exec(locale);
  // ICU collation (PostgreSQL 15+): the C library locale still sets LC_CTYPE-dependent behaviour.
  const localeFlags = icu ? ['--locale-provider=icu', `--icu-locale=${icu[1]}`, '--locale=C.UTF-8'] : [`--locale=${locale}`];
  return ['--no-sync', '--auth=trust', '--encoding=UTF8', ...localeFlags, '--no-instructions'];
}

/**
 * The locale a PostgreSQL data directory gets when the user chose none: what the official image
 * (`ENV LANG en_US.utf8`) and the distribution packages on a typical server give, en_US.UTF-8, when
 * this machine has it; else C.UTF-8 (what Debian's package gives on a machine without en_US, and
 * what glibc always has); plain C only on a machine with neither. `available` is `locale -a`.
 */
export function defaultPostgresLocale(available: readonly string[]): string {
  const norm = (l: string) => l.toLowerCase().replace(/utf-?8/, 'utf8');
  const have = new Map(available.map((l) => [norm(l), l]));
  for (const want of ['en_US.UTF-8', 'C.UTF-8']) {
    const found = have.get(norm(want));
    if (found) return found;
  }
  return 'C';
}

/**
 * The time zone our servers start in: the official images run in UTC (a container has no local
 * zone), so answers that depend on the session zone are those of production, not of the laptop.
 */
export const SERVER_TIME_ZONE = 'Etc/UTC';

/** The settings `describe()` and `doctor` read back to prove a PostgreSQL server is really tuned. */
export const POSTGRES_TUNED_EXPECT: Record<string, string> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/** Per-database and reversible: what we may set on a database we created on a server we do not own. */
export const POSTGRES_PER_DATABASE: Record<string, string> = { synchronous_commit: 'off' };

// MySQL / MariaDB: see mysqlServerFlags below.

export type MysqlFlavor = 'mysql' | 'mariadb';

export interface MysqlFlagOptions {
  flavor: MysqlFlavor;
  /** Server version, e.g. '10.11.19' or '8.4.3'; only major.minor.patch matter. */
  version: string;
  /** InnoDB buffer pool, e.g. '256M'. Allocated lazily, so the cost is at most this much RAM. */
  bufferPoolSize?: string;
  /** Redo log capacity, e.g. '256M'. On tmpfs this much RAM is taken as soon as the server starts. */
  redoLogSize?: string;
  maxConnections?: number;
}

/** Defaults sized so that a test run of a few hundred MB of writes never waits on a checkpoint. */
export const MYSQL_DEFAULT_BUFFER_POOL = '256M';
export const MYSQL_DEFAULT_REDO_LOG = '256M';

/** [major, minor, patch] of a version string such as '8.0.36' or '10.11.19-MariaDB-0+deb12u1'. */
export function parseMysqlVersion(version: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  if (!m) return [0, 0, 0];
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

function atLeast(v: [number, number, number], major: number, minor: number, patch = 0): boolean {
  return v[0] !== major ? v[0] > major : v[1] !== minor ? v[1] > minor : v[2] >= patch;
}

/** Bytes of a size such as '256M', '1G', '512K' or a plain number. */
export function parseSize(size: string, option = 'size'): number {
  const m = typeof size === 'string' ? /^(\d+)([KMG]?)B?$/i.exec(size.trim()) : null;
  if (!m)
    throw new FastTestDbError(
      'BAD_OPTION',
      `${option} ${JSON.stringify(size)} is not a size`,
      `write ${option} like '256M', '1G' or '512K'`,
    );
  const unit = (m[2] ?? '').toUpperCase();
  return Number(m[1]) * (unit === 'G' ? 1024 ** 3 : unit === 'M' ? 1024 ** 2 : unit === 'K' ? 1024 : 1);
}

/**
 * Command-line flags for a throwaway mysqld/mariadbd, per flavor and version. Every flag here
 * must exist in that version: an unknown option makes the server refuse to start.
 * The list is MySQL 8.x's: binary log off, redo flushed once a second, no doublewrite, a large redo
 * log and IO capacity for tmpfs. MariaDB has no innodb_redo_log_capacity and a single redo file.
 */
export function mysqlServerFlags(opts: MysqlFlagOptions): string[] {
  const v = parseMysqlVersion(opts.version);
  const pool = opts.bufferPoolSize ?? MYSQL_DEFAULT_BUFFER_POOL;
  const redo = opts.redoLogSize ?? MYSQL_DEFAULT_REDO_LOG;
  // Checked here rather than by the server, which would refuse to start with a cryptic log line.
  parseSize(pool, 'bufferPoolSize');
  parseSize(redo, 'redoLogSize');
  const flags = [
    // Durability off: no binary log, no fsync per commit, no torn-page protection.
    '--skip-log-bin',
    '--innodb-flush-log-at-trx-commit=0',
    // OFF is accepted both by the old boolean and by the newer enums (MySQL 8.0.30+, MariaDB 11.x).
    '--innodb-doublewrite=OFF',
    `--innodb-buffer-pool-size=${pool}`,
    // tmpfs has no seeks and no IO limit worth pacing for.
    '--innodb-io-capacity=10000',
    '--innodb-io-capacity-max=20000',
    '--innodb-flush-neighbors=0',
    // A throwaway server has nothing worth warming up from or saving for next time.
    '--innodb-buffer-pool-load-at-startup=OFF',
    '--innodb-buffer-pool-dump-at-shutdown=OFF',
    `--max-connections=${opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS}`,
    // No DNS lookups per connection.
    '--skip-name-resolve',
  ];
  if (opts.flavor === 'mariadb') {
    // One redo file since 10.5; its size is the checkpoint budget.
    flags.push(`--innodb-log-file-size=${redo}`, '--innodb-log-buffer-size=32M');
    // MariaDB without a config file defaults to latin1. The official image and Debian's package
    // configure utf8mb4 (50-server.cnf), whose default collation in 10.x is utf8mb4_general_ci, as
    // theirs is: the parity test (test/mysql/parity.test.ts) compares the answers.
    flags.push('--character-set-server=utf8mb4');
  } else {
    if (atLeast(v, 8, 0, 30)) flags.push(`--innodb-redo-log-capacity=${redo}`);
    else {
      // Before 8.0.30 the redo log is N files of innodb_log_file_size each.
      const half = Math.max(parseSize(redo, 'redoLogSize') >> 1, 4 * 1024 * 1024);
      flags.push(`--innodb-log-file-size=${half}`, '--innodb-log-files-in-group=2');
    }
    flags.push('--innodb-log-buffer-size=32M');
    // The X protocol listens on 33060 by default: two servers would collide on it.
    flags.push('--mysqlx=OFF');
    // Saves memory and start-up time; the monitor reads status variables, not performance_schema.
    flags.push('--performance-schema=OFF');
  }
  return flags;
}

/** Settings `describe()` reads back to prove a MySQL/MariaDB server is tuned. */
export const MYSQL_TUNED_EXPECT: Record<string, string> = {
  innodb_flush_log_at_trx_commit: '0',
  innodb_doublewrite: 'OFF',
  log_bin: 'OFF',
};

/** Everything describe() reads back (missing names are simply absent on that flavor/version). */
export const MYSQL_DESCRIBE_SETTINGS = [
  'innodb_flush_log_at_trx_commit',
  'innodb_doublewrite',
  'log_bin',
  'sync_binlog',
  'innodb_buffer_pool_size',
  'innodb_redo_log_capacity',
  'innodb_log_file_size',
  'innodb_log_files_in_group',
  'innodb_log_buffer_size',
  'innodb_io_capacity',
  'innodb_flush_neighbors',
  'innodb_flush_method',
  'max_connections',
  'character_set_server',
  'datadir',
];
