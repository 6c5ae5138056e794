/**
 * InnoDB checkpoint-stall sampler for `fast-test-db monitor`. When the redo log fills up faster than
 * dirty pages are flushed, InnoDB stalls every writer until the checkpoint catches up: a test
 * suite then shows long, random pauses (variance, not the mean). Sampling the checkpoint age
 * as a share of the redo capacity shows it coming; the fix is a larger redo log (redoLogSize).
 */
import type { Monitor, Sampler, SqlClient } from '../engine.js';

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

/** One interval on a MySQL/MariaDB server: the checkpoint age at its end, the log waits during it. */
export interface MysqlLine extends Omit<MysqlMonitorSample, 'at' | 'logWaits'> {
  engine: 'mysql';
  at: string;
  /** Times a writer waited for log buffer space during the interval. */
  logWaits: number;
  /** Plain words for what in this interval looks like a stall. */
  warnings: string[];
}

/** Share of the redo capacity above which writers are about to stall on a checkpoint. */
const CHECKPOINT_AGE_WARN_PCT = 80;

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
async function sampleMysql(client: SqlClient): Promise<MysqlMonitorSample> {
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
  const [v] = await client.query<{ size: string; files: string }>(
    'SELECT @@innodb_log_file_size AS size, @@innodb_log_files_in_group AS files',
  );
  const cap = Number(v?.size ?? 0) * Number(v?.files ?? 1);
  return { ...base, checkpointAge: lsn - ckpt, capacity: cap, agePct: pct(lsn - ckpt, cap), source: 'innodb-status' };
}

function diffMysql(prev: MysqlMonitorSample, s: MysqlMonitorSample): MysqlLine {
  const logWaits = Math.max(0, s.logWaits - prev.logWaits);
  const warnings: string[] = [];
  if (s.agePct >= CHECKPOINT_AGE_WARN_PCT) warnings.push('checkpoint age near the redo capacity: writers will stall; raise redoLogSize');
  if (logWaits > 0) warnings.push('writers waited for log buffer space: raise innodb_log_buffer_size');
  const { at, checkpointAge, capacity, agePct, dirtyPages, totalPages, source } = s;
  return { engine: 'mysql', at: at.toISOString(), checkpointAge, capacity, agePct, dirtyPages, totalPages, logWaits, source, warnings };
}

function formatMysqlLine(l: MysqlLine): string {
  const mb = (b: number) => `${(b / 1024 ** 2).toFixed(1)} MB`;
  const text = `${l.at.slice(11, 19)}  ckpt age ${mb(l.checkpointAge).padStart(9)} (${l.agePct.toFixed(0).padStart(3)}% of ${mb(l.capacity)})  dirty ${l.dirtyPages}/${l.totalPages} pages  log waits ${l.logWaits}`;
  return text + (l.warnings.length ? `  ! ${l.warnings.join('; ')}` : '');
}

function mysqlSampler(client: SqlClient): Sampler<MysqlMonitorSample, MysqlLine> {
  return { label: 'MySQL/MariaDB', take: () => sampleMysql(client), diff: diffMysql };
}

export const monitor: Monitor = {
  sampler: async (client) => mysqlSampler(client),
  format: (line) => formatMysqlLine(line as MysqlLine),
  summary: () => '',
};
