/**
 * One monitor for both engines: `monitor(server)` yields one sample per interval, each the change
 * since the previous reading with plain-words warnings; the engine's sampler (each engine folder's monitor.ts)
 * knows which counters to read, on a connection of its own: one round trip per sample on
 * PostgreSQL, up to three on MySQL before 8.0.30 (the redo log capacity is read again each time).
 */
import type { MysqlLine } from '../../../engines/mysql/monitor.js';
import type { PostgresLine } from '../../../engines/postgres/monitor.js';
import { engineFor } from '../../../engines/index.js';
import { sleep } from '../../../util/sleep.js';
import type { ServerInfo } from '../../../types.js';

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
  const engine = engineFor(server.engine);
  const client = await (await engine.load()).connector.connect(server);
  try {
    const sampler = await engine.monitor.sampler(client);
    opts.onStart?.(sampler.label);
    const interval = opts.intervalMs ?? 1000;
    const end = opts.durationMs !== undefined ? Date.now() + opts.durationMs : Infinity;
    let prev = await sampler.take();
    while (!opts.signal?.aborted && Date.now() < end) {
      await sleep(Math.min(interval, end - Date.now()), opts.signal);
      if (opts.signal?.aborted) break;
      const cur = await sampler.take();
      // Each engine's sampler gives its own lines.
      yield sampler.diff(prev, cur) as Sample;
      prev = cur;
    }
  } finally {
    await client.close();
  }
}

/** One line of text for a terminal. */
export function formatSample(s: Sample): string {
  return engineFor(s.engine).monitor.format(s);
}
