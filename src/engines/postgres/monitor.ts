/**
 * A once-a-second view of what makes a PostgreSQL test run stall: checkpoints forced by WAL volume
 * (requested) rather than by time, backends doing their own fsyncs, WAL bytes per second, temp
 * files, and sessions waiting on I/O or locks. The statistics views moved between releases:
 * checkpoints left pg_stat_bgwriter for pg_stat_checkpointer in 17, backend fsyncs live in
 * pg_stat_io from 16 (and the old column went in 17). The queries follow the server's version.
 */
import type { Monitor, Sampler, SqlClient } from '../engine.js';

export interface PostgresSample {
  /** ms since epoch, taken on our side. */
  at: number;
  /** Commits + rollbacks, all databases. */
  xacts: number;
  /** WAL position in bytes (or replay position on a standby). */
  walBytes: number;
  checkpointsTimed: number;
  checkpointsRequested: number;
  checkpointBuffers: number;
  /** fsync calls made by client backends themselves (the checkpointer's queue was full). */
  backendFsyncs: number;
  tempFiles: number;
  tempBytes: number;
  /** Client sessions running a statement, and those of them waiting on I/O, a lock or an LWLock. */
  active: number;
  waiting: number;
}

export interface PostgresLine {
  engine: 'postgres';
  at: string;
  seconds: number;
  tps: number;
  walBytesPerSec: number;
  checkpointsRequested: number;
  checkpointsTimed: number;
  checkpointBuffers: number;
  backendFsyncs: number;
  tempFiles: number;
  tempBytes: number;
  active: number;
  waiting: number;
  /** Plain words for what in this second looks like a stall. */
  warnings: string[];
}

/** The sampling statement for a server of this major version (server_version_num / 10000). */
function postgresSampleSql(major: number): string {
  const checkpoints =
    major >= 17
      ? `(SELECT num_timed FROM pg_stat_checkpointer)::float8 AS ckpt_timed,
         (SELECT num_requested FROM pg_stat_checkpointer)::float8 AS ckpt_req,
         (SELECT buffers_written FROM pg_stat_checkpointer)::float8 AS ckpt_buffers`
      : `(SELECT checkpoints_timed FROM pg_stat_bgwriter)::float8 AS ckpt_timed,
         (SELECT checkpoints_req FROM pg_stat_bgwriter)::float8 AS ckpt_req,
         (SELECT buffers_checkpoint FROM pg_stat_bgwriter)::float8 AS ckpt_buffers`;
  const fsyncs =
    major >= 16
      ? `(SELECT coalesce(sum(fsyncs), 0) FROM pg_stat_io WHERE backend_type = 'client backend')::float8 AS backend_fsyncs`
      : `(SELECT buffers_backend_fsync FROM pg_stat_bgwriter)::float8 AS backend_fsyncs`;
  return `SELECT
    (SELECT coalesce(sum(xact_commit + xact_rollback), 0) FROM pg_stat_database)::float8 AS xacts,
    (SELECT coalesce(sum(temp_files), 0) FROM pg_stat_database)::float8 AS temp_files,
    (SELECT coalesce(sum(temp_bytes), 0) FROM pg_stat_database)::float8 AS temp_bytes,
    pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END, '0/0')::float8 AS wal_bytes,
    ${checkpoints},
    ${fsyncs},
    (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid())::int AS active,
    (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()
       AND wait_event_type IN ('IO', 'Lock', 'LWLock', 'IPC'))::int AS waiting`;
}

async function serverMajor(client: SqlClient): Promise<number> {
  const [row] = await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
  return Math.floor(Number(row!.v) / 10000);
}

async function samplePostgres(client: SqlClient, major: number): Promise<PostgresSample> {
  const [r] = await client.query<Record<string, number>>(postgresSampleSql(major));
  const n = (k: string) => Number(r![k] ?? 0);
  return {
    at: Date.now(),
    xacts: n('xacts'),
    walBytes: n('wal_bytes'),
    checkpointsTimed: n('ckpt_timed'),
    checkpointsRequested: n('ckpt_req'),
    checkpointBuffers: n('ckpt_buffers'),
    backendFsyncs: n('backend_fsyncs'),
    tempFiles: n('temp_files'),
    tempBytes: n('temp_bytes'),
    active: n('active'),
    waiting: n('waiting'),
  };
}

/** The change between two samples, per second where that is the useful unit. */
function diffPostgres(prev: PostgresSample, cur: PostgresSample): PostgresLine {
  const seconds = Math.max((cur.at - prev.at) / 1000, 0.001);
  const d = (k: keyof PostgresSample) => Math.max(0, cur[k] - prev[k]);
  const line: PostgresLine = {
    engine: 'postgres',
    at: new Date(cur.at).toISOString(),
    seconds,
    // Our own sampling statement is one transaction per interval.
    tps: Math.max(0, d('xacts') - 1) / seconds,
    walBytesPerSec: d('walBytes') / seconds,
    checkpointsRequested: d('checkpointsRequested'),
    checkpointsTimed: d('checkpointsTimed'),
    checkpointBuffers: d('checkpointBuffers'),
    backendFsyncs: d('backendFsyncs'),
    tempFiles: d('tempFiles'),
    tempBytes: d('tempBytes'),
    active: cur.active,
    waiting: cur.waiting,
    warnings: [],
  };
  if (line.checkpointsRequested > 0) line.warnings.push('checkpoint forced by WAL volume: raise max_wal_size');
  if (line.backendFsyncs > 0) line.warnings.push('backends fsyncing themselves: turn fsync off on a test server');
  if (line.tempFiles > 0) line.warnings.push('queries spilled to temp files: raise work_mem');
  if (line.waiting > 0 && line.waiting >= line.active / 2)
    line.warnings.push(`${line.waiting} of ${line.active} active sessions waiting on I/O or locks`);
  return line;
}

function rate(bytesPerSec: number): string {
  if (bytesPerSec >= 1024 ** 2) return `${(bytesPerSec / 1024 ** 2).toFixed(1)} MB/s`;
  if (bytesPerSec >= 1024) return `${(bytesPerSec / 1024).toFixed(0)} kB/s`;
  return `${bytesPerSec.toFixed(0)} B/s`;
}

function formatPostgresLine(l: PostgresLine): string {
  const time = l.at.slice(11, 19);
  const parts = [
    time,
    `tps ${l.tps.toFixed(0).padStart(6)}`,
    `wal ${rate(l.walBytesPerSec).padStart(10)}`,
    `ckpt req ${l.checkpointsRequested} timed ${l.checkpointsTimed}`,
    `backend fsync ${l.backendFsyncs}`,
    `temp ${l.tempFiles} files`,
    `active ${l.active} waiting ${l.waiting}`,
  ];
  return parts.join('  ') + (l.warnings.length ? `  ! ${l.warnings.join('; ')}` : '');
}

/** The PostgreSQL sampler: the statement follows the server's major version. */
async function postgresSampler(client: SqlClient): Promise<Sampler<PostgresSample, PostgresLine>> {
  const major = await serverMajor(client);
  return { label: `PostgreSQL ${major}`, take: () => samplePostgres(client, major), diff: diffPostgres };
}

export const monitor: Monitor = {
  sampler: postgresSampler,
  format: (line) => formatPostgresLine(line as PostgresLine),
  summary(lines) {
    const peak = Math.max(0, ...lines.map((l) => (l as PostgresLine).walBytesPerSec));
    return `, peak WAL ${(peak / 1024 ** 2).toFixed(1)} MB/s`;
  },
};
