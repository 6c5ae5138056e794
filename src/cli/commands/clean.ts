/** `fast-test-db clean`: drops what our crashed or finished jobs left behind, and nothing else. */
import { formatDuration, parseDuration } from '../duration.js';
import { clean } from '../tools/clean.js';
import { FastTestDbError } from '../../errors.js';
import { COMMON_HELP, COMMON_OPTIONS, str, targetUrl, type Command, type CommandContext } from '../command.js';
import type { Status } from '../../util/output.js';
import { leftoverLabel } from '../../server/keeper/leftover-copies.js';
import { formatBytes } from '../bytes.js';

export const cleanCommand: Command = {
  name: 'clean',
  summary: 'drop our test databases and templates older than --older-than, stop orphaned servers we started, remove copies a kill left',
  help: `Usage: fast-test-db clean --older-than D [URL] [options]

Drops the test databases and templates that fast-test-db created (each carries a marker, read
back from the server before every drop) and that are older than D. A database without our
marker is never touched, nor one whose run is still running on this machine, nor a template
that a live run leases (a runner's global setup, prepareTemplate()) or has cloned.
Also stops servers this project started whose keeper process died, and removes their data
(--all: every project's). And removes what a killed save or copy left on disk: a server's
data directory or initdb output staged for the cache (warm-save-<pid>[-initdb], in memory), a
copy half written or half removed (*.partial-<pid>, *.old-<pid>), a copy of the PostgreSQL
binaries no server uses (bin-postgres-*, made when root runs a project the server's account
cannot enter), initdb's output no start used within D (initdb-postgres-*, shared by every
project of this user: the next start runs initdb and keeps it again); each only
once the process writing it is gone, and only under its own name beside our servers (every
project's: the names say none) or in this project's cache dir. With a URL, only that server is
cleaned (and, when it is one we started, only that one is stopped or removed; no files).
Without one: FAST_TEST_DB_URL, else every running server this project started.

Options:
  --older-than D    required: e.g. 2h, 30m, 1d; 0 means everything of ours nobody is using
  --url URL         the server to clean (same as the positional URL)
  --prefix P        only names starting with P (default: anything carrying our marker)
  --run ID          only what CI run ID created (e.g. gh<run_id>a<attempt>)
  --dry-run         print what would be dropped, stopped or removed (with sizes), change nothing
  --force           terminate connections still open to a stale database first
  --databases-only  leave servers and files alone
  --all             servers of every project of this user, not only this one's (cwd)
${COMMON_HELP}

Examples:
  fast-test-db clean --older-than 2h --dry-run
  fast-test-db clean --older-than 0 --run "gh\${GITHUB_RUN_ID}a\${GITHUB_RUN_ATTEMPT}"   # if: always()`,
  options: {
    ...COMMON_OPTIONS,
    'older-than': { type: 'string' },
    url: { type: 'string' },
    prefix: { type: 'string' },
    run: { type: 'string' },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
    'databases-only': { type: 'boolean' },
    all: { type: 'boolean' },
  },
  maxPositionals: 1,
  async run({ values, positionals, out, io }: CommandContext) {
    const olderThan = str(values['older-than']);
    if (olderThan === undefined)
      throw new FastTestDbError(
        'BAD_OPTION',
        'clean needs --older-than',
        'say how old a leftover must be, e.g. --older-than 2h (or 0 for everything of ours that nobody uses)',
      );
    const olderThanMs = parseDuration(olderThan);
    const dryRun = Boolean(values['dry-run']);
    let status: Status | undefined;
    const report = await clean({
      olderThanMs,
      url: targetUrl({ positionals, values, io }),
      prefix: str(values.prefix),
      run: str(values.run),
      dryRun,
      force: Boolean(values.force),
      servers: !values['databases-only'],
      all: Boolean(values.all),
      env: io.env,
      onProgress(done, total, what) {
        status ??= out.status(dryRun ? 'checking' : 'cleaning', total);
        status.update(done, what, total);
      },
    });
    status?.succeed(dryRun ? 'checked' : 'cleaned');
    out.data(report);
    const verb = dryRun ? 'would drop' : 'dropped';
    let dropped = 0;
    let kept = 0;
    for (const t of report.targets) {
      out.line(out.c.bold(t.server));
      if (t.error) out.line(`  ${out.c.red('✗')} ${t.error}`);
      for (const d of t.dropped)
        out.line(`  ${out.c.green('-')} ${verb} ${d.kind} ${d.name} (${formatDuration(d.ageMs)} old${d.run ? `, run ${d.run}` : ''})`);
      for (const f of t.failed) out.line(`  ${out.c.red('✗')} could not drop ${f.kind} ${f.name}: ${f.error.split('\n')[0]}`);
      for (const k of t.kept) out.line(out.c.dim(`    kept ${k.kind} ${k.name}: ${k.reason}`));
      if (t.failed.some((f) => /in use|being accessed|other session/i.test(f.error)))
        out.line(`    fix: add --force to terminate the connections still open to them`);
      dropped += t.dropped.length;
      kept += t.kept.length;
    }
    for (const s of report.servers) {
      const line = `server ${s.dir}: ${s.action} (${s.reason})`;
      out.line(s.action === 'kept' ? out.c.dim(line) : line);
    }
    for (const f of report.files) {
      const line = `${leftoverLabel(f.kind)} ${f.path} (${formatBytes(f.bytes)}): ${f.action} (${f.reason})`;
      out.line(f.action === 'kept' ? out.c.dim(line) : f.action === 'failed' ? out.c.red(line) : line);
    }
    const servers = report.servers.filter((s) => s.action !== 'kept').length;
    const files = report.files.filter((f) => f.action === 'removed' || f.action === 'would remove');
    const freed = files.length ? ` (${formatBytes(files.reduce((n, f) => n + f.bytes, 0))})` : '';
    out.line(
      `${verb} ${dropped} database(s)/template(s), kept ${kept} of ours; ${dryRun ? 'would stop/remove' : 'stopped/removed'} ${servers} orphaned server(s); ${dryRun ? 'would remove' : 'removed'} ${files.length} leftover cop(ies)${freed}; older than ${formatDuration(olderThanMs)}`,
    );
    if (report.targets.length === 0) out.note('no server to clean: pass a URL (or set FAST_TEST_DB_URL); no server of ours is running');
    return report.ok ? 0 : 1;
  },
};
