/**
 * What a faster (or slower) database can change in a run: the share of the time in test files spent
 * waiting on queries. That wait is the most any database can save; the line gives no figure for a
 * default, durable server, because none holds across suites. Measured by bench/reporter-estimate.ts
 * on the machine's PostgreSQL 15 service against fast-test-db (2 cores, 3 alternated rounds):
 * tests that commit each insert took 6.1 s there against 0.85 s here, 5.3 s more for 0.9 s of
 * database wait (the service's disk flushes every commit), while tests of reads in BEGIN/ROLLBACK
 * took 0.62 s there and 0.77 s here. A fixed factor (the 2.0x of the bench's per-row INSERT, which
 * the line used to apply to the whole run) was wrong both ways: it said 7.3 s for a TypeORM suite
 * that took 6.05 s on its default server.
 *
 * The line says less where the share itself would mislead: a run with failed tests (their timings
 * say little), queries through a driver we could not see (the share is a lower bound), and more
 * workers than CPUs (a query's wait then includes time its worker waited for a CPU, which a faster
 * server does not give back).
 */

/**
 * Below this share of the time in files, a faster database cannot make the run much faster: the
 * line says so and nothing else. At 10% even an infinitely fast database saves a tenth.
 */
export const SMALL_DB_SHARE = 0.1;

export interface RunFacts {
  /** Test files that failed (a failing test, or the file itself). */
  failedFiles?: number;
  /** Installed drivers whose queries were not seen. */
  unseen?: string[];
  /** Worker processes that ran files, and CPUs this machine gives the run. */
  workers?: number;
  cpus?: number;
}

export interface DatabaseGain {
  /** Sum of the files' wall times and of their time waiting on the database (ms). */
  filesMs: number;
  dbMs: number;
  queries: number;
  /** dbMs over the wall time of the files that recorded it (not all of filesMs), between 0 and 1. */
  share: number;
  /** Whole run, from the reporter's start to the end of the last file (ms). */
  runMs: number;
  /** Why the line says less than the share. */
  omitted?: 'failed' | 'unseen' | 'small' | 'cpu-starved';
  failedFiles: number;
  unseen: string[];
  workers: number;
  cpus: number;
}

export function databaseGain(
  files: Array<{ wallMs: number; dbMs?: number; queries?: number }>,
  runMs: number,
  facts: RunFacts = {},
): DatabaseGain | undefined {
  const filesMs = files.reduce((s, f) => s + f.wallMs, 0);
  // Files without a record (setup file missing) have no database figure: leave them out of both sums.
  const measured = files.filter((f) => f.dbMs !== undefined);
  if (measured.length === 0 || !(filesMs > 0)) return undefined;
  const measuredMs = measured.reduce((s, f) => s + f.wallMs, 0);
  const dbMs = measured.reduce((s, f) => s + f.dbMs!, 0);
  const queries = measured.reduce((s, f) => s + (f.queries ?? 0), 0);
  const share = measuredMs > 0 ? Math.min(1, Math.max(0, dbMs / measuredMs)) : 0;
  const failedFiles = facts.failedFiles ?? 0;
  const unseen = facts.unseen ?? [];
  const workers = Math.max(1, facts.workers ?? 1);
  const cpus = Math.max(1, facts.cpus ?? workers);
  const omitted =
    failedFiles > 0
      ? 'failed'
      : unseen.length > 0
        ? 'unseen'
        : share < SMALL_DB_SHARE
          ? 'small'
          : workers > cpus
            ? 'cpu-starved'
            : undefined;
  const base = { filesMs, dbMs, queries, share, runMs, failedFiles, unseen, workers, cpus };
  return omitted ? { ...base, omitted } : base;
}

const secs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(1)} s`);

/** Package names as users know the drivers. */
const DRIVER_NAMES: Record<string, string> = {
  postgres: 'postgres.js',
  '@prisma/client': "Prisma's own query engine (no driver adapter installed)",
};
export const driverName = (pkg: string) => DRIVER_NAMES[pkg] ?? pkg;

/** The one line printed at the end of a run. */
export function formatGain(g: DatabaseGain): string {
  const pct = Math.round(g.share * 100);
  const figures = `(${secs(g.dbMs)} waiting on ${g.queries} queries in ${secs(g.filesMs)} of test files)`;
  switch (g.omitted) {
    case 'failed':
      return `the database was ${pct}% of this run ${figures}; what a faster database would save is left out because ${g.failedFiles} test file(s) failed`;
    case 'unseen': {
      const names = g.unseen.map(driverName).join(', ');
      if (g.queries === 0) return `queries through ${names} could not be seen, so the database's share of this run is not known`;
      return `the database was at least ${pct}% of this run ${figures}; queries through ${names} could not be seen, so this is a lower bound`;
    }
    case 'small':
      return `the database was ${pct}% of this run: fast-test-db cannot make it much faster ${figures}`;
    case 'cpu-starved':
      return `the database was at most ${pct}% of this run ${figures}: ${g.workers} workers on ${g.cpus} CPUs, so a query's wait includes time waiting for a CPU, which a faster server does not give back`;
    default:
      return `the database was ${pct}% of this run ${figures}: the most a faster database can save`;
  }
}
