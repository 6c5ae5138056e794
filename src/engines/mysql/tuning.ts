/**
 * MySQL's and MariaDB's non-durable settings, in one place: flags for the servers we start
 * (embedded or container), per flavor and version, and the settings read back to prove a server
 * tuned. A server we do not own is never changed (MySQL has no per-schema durability settings).
 */
import { FastTestDbError } from '../../errors.js';
import type { DescribeReport } from '../../types.js';
import { logger } from '../../util/log.js';
import type { DatabaseTuner, Tuning } from '../engine.js';
import type { MysqlClient } from './client.js';
import { DEFAULT_MAX_CONNECTIONS } from '../tuning.js';

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
    // theirs is: the parity test (test/engines/mysql/parity.test.ts) compares the answers.
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

/** The command-line flags that turn the untuned settings into tuned ones. */
function flags(untuned: DescribeReport['untuned']): string[] {
  return Object.keys(untuned).map((k) =>
    k === 'log_bin' ? '--skip-log-bin' : `--${k.replace(/_/g, '-')}=${MYSQL_TUNED_EXPECT[k] ?? untuned[k]!.expected}`,
  );
}

function fix(report: DescribeReport, flags: string[]): string {
  const all = flags.join(' ');
  const image =
    report.flavor === 'mariadb'
      ? `mariadb:${report.version.split('.').slice(0, 2).join('.')}`
      : `mysql:${report.version.split('.').slice(0, 2).join('.')}`;
  return [
    `start the server with: ${report.flavor === 'mariadb' ? 'mariadbd' : 'mysqld'} ${all}`,
    `in Docker: docker run --tmpfs /var/lib/mysql -e MYSQL_ALLOW_EMPTY_PASSWORD=1 ${image} ${all}`,
    'pass them on the command line only, never in a my.cnf that could reach production',
    'or let fast-test-db run its own tuned server: `fast-test-db start --engine mysql`',
  ].join('\n');
}

// MySQL has no UNLOGGED tables.
export const tuning: Tuning = { expected: MYSQL_TUNED_EXPECT, flags, fix, unloggedWhenUntuned: false };

const log = logger('mysql');

export const tuner: DatabaseTuner<MysqlClient> = {
  async tuneDatabase(_admin, name) {
    // MySQL has no per-schema durability settings, and a server we do not own is never changed
    // globally (no SET GLOBAL): what stays fast there is the clone and the dirty-table reset.
    log(`${name}: MySQL/MariaDB have no per-schema tuning; server settings left as they are`);
  },
};
