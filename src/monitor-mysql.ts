/**
 * InnoDB checkpoint-stall monitor (seed 002, step 3). When the redo log fills up faster than
 * dirty pages are flushed, InnoDB stalls every writer until the checkpoint catches up: a test
 * suite then shows long, random pauses (variance, not the mean). Sampling the checkpoint age
 * as a share of the redo capacity shows it coming; the fix is a larger redo log (redoLogSize).
 */
import { logger } from './log.js';
import type { SqlClient } from './dialect/dialect.js';

const log = logger('monitor');

export interface MysqlMonitorSample {
  at: Date;
  /** Redo written since the last checkpoint, in bytes. */
  checkpointAge: number;
  /** What the age is measured against: MariaDB's max checkpoint age, or MySQL's redo capacity. */
  capacity: number;
  /** checkpointAge / capacity * 100. */
  agePct: number;
  dirtyPages: number;
  totalPages: number;
  /** Times a writer waited for log buffer space since the server started. */
  logWaits: number;
  /** Which status variables the age came from. */
  source: 'mariadb' | 'mysql-8.0.30' | 'innodb-status';
}

export interface MysqlMonitorOptions {
  intervalMs?: number;
  onSample?: (s: MysqlMonitorSample) => void;
  /** Called once when the age has stayed above `warnPct` for `warnAfter` samples in a row. */
  onWarning?: (message: string, s: MysqlMonitorSample) => void;
  warnPct?: number;
  warnAfter?: number;
}

export interface MonitorHandle {
  stop(): Promise<void>;
  /** Samples taken so far (the last 1000). */
  readonly samples: readonly MysqlMonitorSample[];
}

const STATUS_NAMES = [
  'Innodb_checkpoint_age',
  'Innodb_checkpoint_max_age',
  'Innodb_redo_log_current_lsn',
  'Innodb_redo_log_checkpoint_lsn',
  'Innodb_redo_log_capacity_resized',
  'Innodb_buffer_pool_pages_dirty',
  'Innodb_buffer_pool_pages_total',
  'Innodb_log_waits',
];

/** Takes one sample: the right status variables per flavor, SHOW ENGINE INNODB STATUS on older MySQL. */
export async function sampleMysql(client: SqlClient): Promise<MysqlMonitorSample> {
  const rows = await client.query<{ Variable_name: string; Value: string }>(
    `SHOW GLOBAL STATUS WHERE Variable_name IN (${STATUS_NAMES.map((n) => `'${n}'`).join(', ')})`,
  );
  const st = new Map(rows.map((r) => [r.Variable_name, Number(r.Value)]));
  const base = {
    at: new Date(),
    dirtyPages: st.get('Innodb_buffer_pool_pages_dirty') ?? 0,
    totalPages: st.get('Innodb_buffer_pool_pages_total') ?? 0,
    logWaits: st.get('Innodb_log_waits') ?? 0,
  };
  const pct = (age: number, cap: number) => (cap > 0 ? (age / cap) * 100 : 0);
  if (st.has('Innodb_checkpoint_age') && st.has('Innodb_checkpoint_max_age')) {
    const age = st.get('Innodb_checkpoint_age')!;
    const cap = st.get('Innodb_checkpoint_max_age')!;
    return { ...base, checkpointAge: age, capacity: cap, agePct: pct(age, cap), source: 'mariadb' };
  }
  if (st.has('Innodb_redo_log_current_lsn') && st.has('Innodb_redo_log_checkpoint_lsn')) {
    const age = st.get('Innodb_redo_log_current_lsn')! - st.get('Innodb_redo_log_checkpoint_lsn')!;
    let cap = st.get('Innodb_redo_log_capacity_resized') ?? 0;
    if (!cap) cap = Number((await client.query<{ v: string }>('SELECT @@innodb_redo_log_capacity AS v'))[0]?.v ?? 0);
    return { ...base, checkpointAge: age, capacity: cap, agePct: pct(age, cap), source: 'mysql-8.0.30' };
  }
  // MySQL before 8.0.30: the numbers are only in the InnoDB status text.
  const [status] = await client.query<{ Status: string }>('SHOW ENGINE INNODB STATUS');
  const text = status?.Status ?? '';
  const lsn = Number(/Log sequence number\s+(\d+)/.exec(text)?.[1] ?? 0);
  const ckpt = Number(/Last checkpoint at\s+(\d+)/.exec(text)?.[1] ?? 0);
  const [v] = await client.query<{ size: string; files: string }>('SELECT @@innodb_log_file_size AS size, @@innodb_log_files_in_group AS files');
  const cap = Number(v?.size ?? 0) * Number(v?.files ?? 1);
  return { ...base, checkpointAge: lsn - ckpt, capacity: cap, agePct: pct(lsn - ckpt, cap), source: 'innodb-status' };
}

/** Samples every `intervalMs` (default 1 s) until stopped; warns when the age stays above 80 %. */
export function monitorMysql(client: SqlClient, opts: MysqlMonitorOptions = {}): MonitorHandle {
  const intervalMs = opts.intervalMs ?? 1000;
  const warnPct = opts.warnPct ?? 80;
  const warnAfter = opts.warnAfter ?? 3;
  const samples: MysqlMonitorSample[] = [];
  let above = 0;
  let warned = false;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const tick = async () => {
    try {
      const s = await sampleMysql(client);
      samples.push(s);
      if (samples.length > 1000) samples.shift();
      opts.onSample?.(s);
      above = s.agePct > warnPct ? above + 1 : 0;
      if (above >= warnAfter && !warned) {
        warned = true;
        const msg = `InnoDB checkpoint age has stayed above ${warnPct}% of the redo capacity (${s.agePct.toFixed(0)}% of ${Math.round(s.capacity / 2 ** 20)} MiB) for ${above} samples: writers will stall on checkpoints. Raise redoLogSize (innodb_redo_log_capacity / innodb_log_file_size).`;
        log(msg);
        opts.onWarning?.(msg, s);
      }
      if (above === 0) warned = false;
    } catch (e) {
      log(`sample failed: ${(e as Error).message}`);
    }
  };
  const timer = setInterval(() => {
    if (!stopped) running = running.then(tick);
  }, intervalMs);
  timer.unref?.();
  running = running.then(tick);
  return {
    samples,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
