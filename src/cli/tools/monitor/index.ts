/**
 * One monitor for both engines: `monitor(server)` yields one sample per interval, each the change
 * since the previous reading with plain-words warnings; the engine's sampler (postgres.ts,
 * mysql.ts) knows which counters to read, on a connection of its own: one round trip per sample on
 * PostgreSQL, up to three on MySQL before 8.0.30 (the redo log capacity is read again each time).
 */
import { dialectFor } from '../../../engines/index.js';
import { sleep } from '../../../util/sleep.js';
import type { ServerInfo } from '../../../types.js';
import { formatMysqlLine, mysqlSampler, type MysqlLine } from '../../../engines/mysql/monitor.js';
import { formatPostgresLine, postgresSampler, type PostgresLine } from '../../../engines/postgres/monitor.js';
import type { Sampler } from './sampler.js';

export type Sample = PostgresLine | MysqlLine;

export interface MonitorOptions {
  /** Time between samples. Default 1 s. */
  intervalMs?: number;
  /** Stop after this long. Default: until `signal` aborts. */
  durationMs?: number;
  signal?: AbortSignal;
  /** Called once, before the first sample, with the server in a few words (e.g. "PostgreSQL 17"). */
  onStart?: (label: string) => void;
}

export async function* monitor(server: ServerInfo, opts: MonitorOptions = {}): AsyncGenerator<Sample> {
  const dialect = await dialectFor(server.engine);
  const client = await dialect.connect(server);
  try {
    const sampler = (server.engine === 'postgres' ? await postgresSampler(client) : mysqlSampler(client)) as Sampler<unknown, Sample>;
    opts.onStart?.(sampler.label);
    const interval = opts.intervalMs ?? 1000;
    const end = opts.durationMs !== undefined ? Date.now() + opts.durationMs : Infinity;
    let prev = await sampler.take();
    while (!opts.signal?.aborted && Date.now() < end) {
      await sleep(Math.min(interval, end - Date.now()), opts.signal);
      if (opts.signal?.aborted) break;
      const cur = await sampler.take();
      yield sampler.diff(prev, cur);
      prev = cur;
    }
  } finally {
    await client.close();
  }
}

/** One line of text for a terminal. */
export function formatSample(s: Sample): string {
  return s.engine === 'postgres' ? formatPostgresLine(s) : formatMysqlLine(s);
}
