/** What each engine gives the monitor: a reading of its counters, and the change between two. */
export interface Sampler<Reading, Line> {
  /** The server in a few words, e.g. "PostgreSQL 17". */
  label: string;
  take(): Promise<Reading>;
  diff(prev: Reading, cur: Reading): Line;
}
