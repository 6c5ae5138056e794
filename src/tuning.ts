/**
 * Every non-durable setting fast-test-db applies, in one place. They are only ever passed as
 * command-line flags to servers we start ourselves (embedded or container), so they can never
 * leak into a config file that reaches production. Servers we do not own get only the
 * per-database, reversible settings at the bottom.
 */

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
    // Many workers, each with an ORM pool, plus our admin connections.
    max_connections: String(opts.maxConnections),
    // Short-lived tests gain nothing from background vacuum/analyze or JIT compilation.
    autovacuum: 'off',
    jit: 'off',
    // Quiet logs; errors still reach the keeper's log file.
    log_min_messages: 'warning',
    log_checkpoints: 'off',
    ...(opts.major >= 15 ? { log_startup_progress_interval: '0' } : {}),
  };
}

/** Flags passed to `initdb` for a data directory on tmpfs. */
export const POSTGRES_INITDB_FLAGS = ['--no-sync', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-instructions'];

/** The settings `describe()` and `doctor` read back to prove a PostgreSQL server is really tuned. */
export const POSTGRES_TUNED_EXPECT: Record<string, string> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/** Per-database and reversible: what we may set on a database we created on a server we do not own. */
export const POSTGRES_PER_DATABASE: Record<string, string> = { synchronous_commit: 'off' };

// MySQL / MariaDB: see mysqlServerFlags below.
