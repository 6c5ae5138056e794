/** `fast-test-db monitor`: one line per second of what makes a test server stall. */
import { listOwnedServers, parseDuration } from '../../clean.js';
import type { SqlClient } from '../../dialect/dialect.js';
import { dialectFor } from '../../dialect/index.js';
import { FastTestDbError } from '../../errors.js';
import { parseServerUrl } from '../../server/resolve.js';
import type { ServerInfo } from '../../types.js';
import { COMMON_HELP, COMMON_OPTIONS, str, type Command, type CommandContext } from '../command.js';
import { parseEngine } from '../options.js';

export const monitorCommand: Command = {
  name: 'monitor',
  summary: 'live lines: checkpoints, backend fsyncs, WAL/s, temp files (PostgreSQL); checkpoint age (MySQL)',
  help: `Usage: fast-test-db monitor [URL] [options]

Prints one line per interval until Ctrl-C or --duration, for the server at URL (default:
TEST_DATABASE_URL, else the running server we started for this user).
  PostgreSQL: transactions/s, WAL bytes/s, checkpoints requested (forced by WAL volume) vs timed,
              fsyncs done by backends, temp files, sessions waiting on I/O or locks.
  MySQL/MariaDB: InnoDB checkpoint age against the redo capacity, dirty pages, log waits.
Lines that look like a stall end with "!" and what to change. Works on PostgreSQL 12 to 18
(the statistics views moved in 16 and 17) and on MySQL 8.x and MariaDB 10.x/11.x.

Options:
  --url URL         the server to watch (same as the positional URL)
  -e, --engine E    with no URL: watch our running postgres or mysql server
  -d, --duration D  stop after this long, e.g. 30s or 5m (default: until Ctrl-C)
  -i, --interval D  time between lines (default 1s)
${COMMON_HELP}`,
  options: {
    ...COMMON_OPTIONS,
    url: { type: 'string' },
    engine: { type: 'string', short: 'e' },
    duration: { type: 'string', short: 'd' },
    interval: { type: 'string', short: 'i' },
  },
  maxPositionals: 1,
  async run(ctx) {
    const { values, positionals, io } = ctx;
    const url = positionals[0] ?? str(values.url) ?? io.env.TEST_DATABASE_URL;
    const server = url ? fromUrl(url) : ourServer(parseEngine(str(values.engine)));
    const duration = str(values.duration);
    const interval = str(values.interval);
    const opts = { durationMs: duration ? parseDuration(duration) : undefined, intervalMs: interval ? parseDuration(interval) : 1000 };
    if (opts.intervalMs < 100) throw new FastTestDbError('BAD_OPTION', `--interval ${interval} is too short`, 'use 100ms or more');
    const dialect = await dialectFor(server.engine);
    const client = await dialect.connect(server);
    try {
      return server.engine === 'postgres' ? await watchPostgres(ctx, client, server, opts) : await watchMysql(ctx, client, server, opts);
    } finally {
      await client.close();
    }
  },
};

function fromUrl(url: string): ServerInfo {
  // Watching only reads statistics, so a remote server is fine here.
  const p = parseServerUrl(url, true);
  return { ...p, flavor: p.engine, version: '', major: 0, tuned: false };
}

function ourServer(engine: ServerInfo['engine'] | undefined): ServerInfo {
  const running = listOwnedServers().filter((s) => s.state === 'running' && s.info && (!engine || s.engine === engine));
  const newest = running.sort((a, b) => a.ageMs - b.ageMs)[0];
  if (!newest?.info)
    throw new FastTestDbError('UNREACHABLE', `no server to watch: no URL given and no ${engine ?? ''} server of ours is running`.replace('  ', ' '), 'pass a URL (or set TEST_DATABASE_URL), or start one with `fast-test-db start`');
  return newest.info;
}

interface WatchOptions {
  durationMs?: number;
  intervalMs: number;
}

async function watchPostgres({ out, signal }: CommandContext, client: SqlClient, server: ServerInfo, opts: WatchOptions): Promise<number> {
  const { monitorPostgres, formatPostgresLine, serverMajor } = await import('../../monitor-postgres.js');
  const major = await serverMajor(client);
  out.note(out.ce.dim(`watching PostgreSQL ${major} at ${server.host}:${server.port}, one line per ${opts.intervalMs / 1000}s${opts.durationMs ? ` for ${opts.durationMs / 1000}s` : ''}; Ctrl-C stops`));
  let lines = 0;
  let stalls = 0;
  let peakWal = 0;
  for await (const line of monitorPostgres(client, { ...opts, signal })) {
    lines++;
    if (line.warnings.length) stalls++;
    peakWal = Math.max(peakWal, line.walBytesPerSec);
    out.data(line);
    const text = formatPostgresLine(line);
    out.line(line.warnings.length ? out.c.yellow(text) : text);
  }
  out.note(`${lines} line(s), ${stalls} with a warning, peak WAL ${(peakWal / 1024 ** 2).toFixed(1)} MB/s`);
  return 0;
}

async function watchMysql({ out, signal }: CommandContext, client: SqlClient, server: ServerInfo, opts: WatchOptions): Promise<number> {
  const { sampleMysql } = await import('../../monitor-mysql.js');
  out.note(out.ce.dim(`watching MySQL/MariaDB at ${server.host}:${server.port}, one line per ${opts.intervalMs / 1000}s; Ctrl-C stops`));
  const end = opts.durationMs !== undefined ? Date.now() + opts.durationMs : Infinity;
  let prev = await sampleMysql(client);
  let lines = 0;
  let stalls = 0;
  while (!signal.aborted && Date.now() < end) {
    await new Promise<void>((res) => {
      const t = setTimeout(res, Math.max(0, Math.min(opts.intervalMs, end - Date.now())));
      signal.addEventListener('abort', () => (clearTimeout(t), res()), { once: true });
    });
    if (signal.aborted) break;
    const s = await sampleMysql(client);
    const logWaits = Math.max(0, s.logWaits - prev.logWaits);
    const warnings: string[] = [];
    if (s.agePct >= 80) warnings.push('checkpoint age near the redo capacity: writers will stall; raise redoLogSize');
    if (logWaits > 0) warnings.push('writers waited for log buffer space: raise innodb_log_buffer_size');
    const line = { at: s.at.toISOString(), checkpointAge: s.checkpointAge, capacity: s.capacity, agePct: s.agePct, dirtyPages: s.dirtyPages, totalPages: s.totalPages, logWaits, source: s.source, warnings };
    lines++;
    if (warnings.length) stalls++;
    out.data(line);
    const mb = (b: number) => `${(b / 1024 ** 2).toFixed(1)} MB`;
    const text = `${line.at.slice(11, 19)}  ckpt age ${mb(s.checkpointAge).padStart(9)} (${s.agePct.toFixed(0).padStart(3)}% of ${mb(s.capacity)})  dirty ${s.dirtyPages}/${s.totalPages} pages  log waits ${logWaits}${warnings.length ? `  ! ${warnings.join('; ')}` : ''}`;
    out.line(warnings.length ? out.c.yellow(text) : text);
    prev = s;
  }
  out.note(`${lines} line(s), ${stalls} with a warning`);
  return 0;
}
