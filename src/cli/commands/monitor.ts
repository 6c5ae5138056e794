/** `fast-test-db monitor`: one line per second of what makes a test server stall. */
import { FastTestDbError } from '../../errors.js';
import { buildContext, type Context } from '../../options/context.js';
import { listOwnedServers } from '../../server/keeper/server-state.js';
import { serverAt } from '../../server/providers/url.js';
import type { ServerInfo } from '../../types.js';
import { COMMON_HELP, COMMON_OPTIONS, str, targetUrl, type Command, type CommandContext } from '../command.js';
import { parseDuration } from '../duration.js';
import { parseEngine } from '../options.js';
import { formatSample, monitor, type Sample } from '../tools/monitor/index.js';
import { engineFor } from '../../engines/index.js';

export const monitorCommand: Command = {
  name: 'monitor',
  summary: 'live lines: checkpoints, backend fsyncs, WAL/s, temp files (PostgreSQL); checkpoint age (MySQL)',
  help: `Usage: fast-test-db monitor [URL] [options]

Prints one line per interval until Ctrl-C or --duration, for the server at URL (default:
FAST_TEST_DB_URL, else the running server we started for this user).
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
    const url = targetUrl({ positionals, values, io });
    // Watching only reads statistics, so a remote server is fine here.
    const server = url
      ? serverAt(url, true, io.env)
      : ourServer(parseEngine(str(values.engine)), buildContext({}, { env: io.env, check: false }));
    const duration = str(values.duration);
    const interval = str(values.interval);
    const opts = { durationMs: duration ? parseDuration(duration) : undefined, intervalMs: interval ? parseDuration(interval) : 1000 };
    if (opts.intervalMs < 100) throw new FastTestDbError('BAD_OPTION', `--interval ${interval} is too short`, 'use 100ms or more');
    return watch(ctx, server, opts);
  },
};

function ourServer(engine: ServerInfo['engine'] | undefined, context: Context): ServerInfo {
  const running = listOwnedServers(context).filter((s) => s.state === 'running' && s.info && (!engine || s.engine === engine));
  const newest = running.sort((a, b) => a.ageMs - b.ageMs)[0];
  if (!newest?.info)
    throw new FastTestDbError(
      'UNREACHABLE',
      `no server to watch: no URL given and no ${engine ?? ''} server of ours is running`.replace('  ', ' '),
      'pass a URL (or set FAST_TEST_DB_URL), or start one with `fast-test-db start`',
    );
  return newest.info;
}

async function watch(
  { out, signal }: CommandContext,
  server: ServerInfo,
  opts: { durationMs?: number; intervalMs: number },
): Promise<number> {
  let lines = 0;
  let stalls = 0;
  const seen: Sample[] = [];
  const onStart = (label: string) =>
    out.note(
      out.ce.dim(
        `watching ${label} at ${server.host}:${server.port}, one line per ${opts.intervalMs / 1000}s${opts.durationMs ? ` for ${opts.durationMs / 1000}s` : ''}; Ctrl-C stops`,
      ),
    );
  for await (const sample of monitor(server, { ...opts, signal, onStart })) {
    lines++;
    if (sample.warnings.length) stalls++;
    seen.push(sample);
    out.data(sample);
    const text = formatSample(sample);
    out.line(sample.warnings.length ? out.c.yellow(text) : text);
  }
  out.note(`${lines} line(s), ${stalls} with a warning${engineFor(server.engine).monitor.summary(seen)}`);
  return 0;
}
