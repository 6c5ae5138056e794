/**
 * What a faster (or slower) database can change in a run: the share of the time in test files spent
 * waiting on queries, and the run's estimated time on a default, durable server.
 *
 * The model: only time waiting on the database changes with the server, and it changes by the ratio
 * of per-statement latency between a durable server and fast-test-db's tuned one. That ratio is
 * measured by the bench's "Per-row INSERT, pg driver, prepared" figures (bench/core.ts, section
 * `core-insert`): 516 us per row on a durable PostgreSQL with data on disk against 261 us on the tuned
 * server (tmpfs, durability off), medians of bench/results/2026-11-29-full.json, so 2.0x. Writes pay
 * that ratio and plain reads pay less, so for a read-heavy suite the estimate is an upper bound.
 * The run's wall time is scaled by the database's share:
 *
 *   estimated = run wall x (1 + share x (factor - 1))
 *
 * which is exact for one worker and, with several workers, assumes the database's share is the same
 * in each. It assumes this run used fast-test-db's tuned server; on a server of its own the user
 * reads the share only.
 */

/** Durable / tuned per-row INSERT latency, from the bench (see above). */
export const DURABLE_LATENCY_FACTOR = 516 / 261;

/** Below this share of the time in files, a faster database cannot make the run much faster: say so. */
export const SMALL_DB_SHARE = 0.2;

export interface DatabaseGain {
  /** Sum of the files' wall times and of their time waiting on the database (ms). */
  filesMs: number;
  dbMs: number;
  /** dbMs over the wall time of the files that recorded it (not all of filesMs), between 0 and 1. */
  share: number;
  /** Whole run, from the reporter's start to the end of the last file (ms). */
  runMs: number;
  /** The same run's estimated wall time on a default, durable server (ms). */
  estimatedDurableMs: number;
  factor: number;
}

export function databaseGain(
  files: Array<{ wallMs: number; dbMs?: number }>,
  runMs: number,
  factor = DURABLE_LATENCY_FACTOR,
): DatabaseGain | undefined {
  const filesMs = files.reduce((s, f) => s + f.wallMs, 0);
  // Files without a record (setup file missing) have no database figure: leave them out of both sums.
  const measured = files.filter((f) => f.dbMs !== undefined);
  if (measured.length === 0 || !(filesMs > 0)) return undefined;
  const measuredMs = measured.reduce((s, f) => s + f.wallMs, 0);
  const dbMs = measured.reduce((s, f) => s + f.dbMs!, 0);
  const share = measuredMs > 0 ? Math.min(1, Math.max(0, dbMs / measuredMs)) : 0;
  return { filesMs, dbMs, share, runMs, estimatedDurableMs: runMs * (1 + share * (factor - 1)), factor };
}

const secs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(1)} s`);

/** The one line printed at the end of a run. */
export function formatGain(g: DatabaseGain): string {
  const pct = Math.round(g.share * 100);
  const head = `the database was ${pct}% of this run (${secs(g.dbMs)} waiting on queries in ${secs(g.filesMs)} of test files)`;
  const estimate = `on a default durable server it would take about ${secs(g.estimatedDurableMs)} instead of ${secs(g.runMs)} (database wait x ${g.factor.toFixed(1)}, the bench's durable/tuned insert latency)`;
  if (g.share < SMALL_DB_SHARE) return `${head}: a faster database cannot make it much faster; ${estimate}`;
  return `${head}; ${estimate}`;
}
