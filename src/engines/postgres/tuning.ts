/**
 * PostgreSQL's non-durable settings, in one place: flags for the servers we start (embedded or
 * container), the settings read back to prove a server tuned, and the per-database ones for
 * servers we do not own.
 */
import type { DescribeReport } from '../../types.js';
import type { DatabaseTuner, Tuning } from '../engine.js';
import type { PgClient } from './client.js';
import { id, lit } from './quote.js';

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

/** The settings `describe()` and `doctor` read back to prove a PostgreSQL server is really tuned. */
export const POSTGRES_TUNED_EXPECT: Record<string, string> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/** Per-database and reversible: what we may set on a database we created on a server we do not own. */
export const POSTGRES_PER_DATABASE: Record<string, string> = { synchronous_commit: 'off' };

/** The command-line flags that turn the untuned settings into tuned ones. */
function flags(untuned: DescribeReport['untuned']): string[] {
  return Object.keys(untuned).map((k) => `-c ${k}=${POSTGRES_TUNED_EXPECT[k] ?? untuned[k]!.expected}`);
}

function fix(report: DescribeReport, flags: string[]): string {
  const all = flags.join(' ');
  // The official image moved PGDATA below /var/lib/postgresql/<major>/ in 18.
  const major = Number(report.version.split('.')[0]) || 16;
  const volume = major >= 18 ? '/var/lib/postgresql' : '/var/lib/postgresql/data';
  return [
    `start the server with: postgres ${all}`,
    `in Docker: docker run --tmpfs ${volume} -e POSTGRES_HOST_AUTH_METHOD=trust postgres:${major} ${all}`,
    'or let fast-test-db run its own tuned server: leave the URL out (embedded default) or run `fast-test-db start`',
    'on a server you cannot restart, fast-test-db already sets synchronous_commit=off per test database and makes template tables UNLOGGED',
  ].join('\n');
}

export const tuning: Tuning = { expected: POSTGRES_TUNED_EXPECT, flags, fix, unloggedWhenUntuned: true };

export const tuner: DatabaseTuner<PgClient> = {
  async tuneDatabase(admin, name) {
    for (const [k, v] of Object.entries(POSTGRES_PER_DATABASE)) await admin.query(`ALTER DATABASE ${id(name)} SET ${id(k)} = ${lit(v)}`);
  },
};
