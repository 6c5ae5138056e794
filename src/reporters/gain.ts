/**
 * What a faster (or slower) database can change in a run: the share of the time in test files spent
 * waiting on queries, and how much longer those queries would wait on a default, durable server.
 *
 * The model: only time waiting on the database changes with the server, and it changes by at most
 * the ratio of per-statement latency between a durable server and fast-test-db's tuned one. That
 * ratio is measured by the bench's "Per-row INSERT, pg driver, prepared" figures (bench/core.ts,
 * section `core-insert`): 516 us per row on a durable PostgreSQL with data on disk against 261 us on
 * the tuned server (tmpfs, durability off), medians of bench/results/2026-11-29-full.json, so 2.0x.
 * Commits pay that ratio; reads and rolled-back work (a BEGIN/ROLLBACK-per-test suite) pay far less,
 * so the figure is an upper bound:
 *
 *   extra wait <= database wait / workers x (factor - 1)
 *
 * It is said of the queries, not of the whole run: a run on fast-test-db also pays a start (server,
 * template, clones) that a run on an already-running server does not, and the reporters cannot
 * time that part. The bench's `reporter-estimate` check compares the figure with a measured run
 * on the machine's default server.
 *
 * The line leaves the estimate out where it would mislead: a run with failed tests (their timings
 * say little), queries through a driver we could not see (the share is a lower bound), and more
 * workers than CPUs (a query's wait then includes time its worker waited for a CPU, which a faster
 * server does not give back).
 */

/** Durable / tuned per-row INSERT latency, from the bench (see above). */
export const DURABLE_LATENCY_FACTOR = 516 / 261;

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
  factor: number;
  /** At most this much longer waiting on queries on a default, durable server (ms); absent when `omitted`. */
  extraDurableMs?: number;
  /** The whole run's time plus extraDurableMs (ms): an upper bound, without fast-test-db's own start. */
  estimatedDurableMs?: number;
  /** Why there is no estimate. */
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
  factor = DURABLE_LATENCY_FACTOR,
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
  const base = { filesMs, dbMs, queries, share, runMs, factor, failedFiles, unseen, workers, cpus };
  if (omitted) return { ...base, omitted };
  // Workers wait side by side: the run gets longer by one worker's share of the extra wait.
  const extraDurableMs = (dbMs / workers) * (factor - 1);
  return { ...base, extraDurableMs, estimatedDurableMs: runMs + extraDurableMs };
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
      return `the database was ${pct}% of this run ${figures}; the estimate on a default server is left out because ${g.failedFiles} test file(s) failed`;
    case 'unseen': {
      const names = g.unseen.map(driverName).join(', ');
      if (g.queries === 0) return `queries through ${names} could not be seen, so the database's share of this run is not known`;
      return `the database was at least ${pct}% of this run ${figures}; queries through ${names} could not be seen, so there is no estimate`;
    }
    case 'small':
      return `the database was ${pct}% of this run: fast-test-db cannot make it much faster ${figures}`;
    case 'cpu-starved':
      return `the database was at most ${pct}% of this run ${figures}: ${g.workers} workers on ${g.cpus} CPUs, so a query's wait includes time waiting for a CPU, which a faster server does not give back; there is no estimate`;
    default:
      return `the database was ${pct}% of this run ${figures}; on a default durable server those queries would wait at most about ${secs(g.extraDurableMs!)} longer (x ${g.factor.toFixed(1)}, the bench's durable/tuned insert latency; reads and rolled-back work pay less)`;
  }
}
