/** `fast-test-db stop`: stops this project's servers (or every one of ours), refusing while clients use them unless --force. */
import { engineNamed } from '../../engines/index.js';
import { FastTestDbError } from '../../errors.js';
import { COMMON_HELP, COMMON_OPTIONS, type Command } from '../command.js';
import { serverOptions, SERVER_OPTIONS } from '../options.js';
import { inUse, stopTarget, stopTargets, type StopTarget } from '../tools/stop.js';

export const stopCommand: Command = {
  name: 'stop',
  summary: "stop this project's servers (started by url, start --reuse or kept by a test run); --all: every one of ours",
  help: `Usage: fast-test-db stop [options]

Stops the servers fast-test-db started for this project (the current directory): one that \`url\`
or \`start --reuse\` left running until its idle timeout, one a test run kept for the next, and a
\`fast-test-db start\` in the foreground (asked to stop as Ctrl-C would: with --data-cache it
saves the data directory first; then it exits). Their data goes with them. A server fast-test-db did
not start (FAST_TEST_DB_URL, a service, a container of yours) is never touched.

While a client still uses a server (a session in pg_stat_activity or the MariaDB/MySQL
processlist, or a test run holding it), stop names each one (pid or connection id, application,
database, user) and stops nothing, exiting 1 with SERVER_IN_USE: a test run in another terminal
is not cut off by surprise. --force stops it anyway, after listing who is cut off.

Options:
  --all             every server of ours on this machine for this user, not only this project's
  --force           stop servers that still have clients (they are listed first)
  --dry-run         list the servers and their clients, stop nothing
  -e, --engine E    only postgres or mysql servers
  --data-root DIR   where our servers keep their data (default /dev/shm)
${COMMON_HELP}

Examples:
  fast-test-db stop
  fast-test-db stop --all --force
  npx fast-test-db stop        # CI: the step after the tests, in place of kill`,
  options: {
    ...COMMON_OPTIONS,
    engine: SERVER_OPTIONS.engine!,
    'data-root': SERVER_OPTIONS['data-root']!,
    all: { type: 'boolean' },
    force: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  },
  async run({ values, out, io }) {
    const options = await serverOptions(values, io.env);
    const engineOnly = values.engine !== undefined ? options.engine : undefined;
    const targets = (await stopTargets(options, Boolean(values.all))).filter((t) => !engineOnly || t.engine === engineOnly);
    const where = values.all ? 'of ours on this machine' : 'of this project';
    if (targets.length === 0) {
      out.data({ event: 'none', servers: [] });
      out.note(`no server ${where} is running`);
      return 0;
    }
    const busy = targets.filter(inUse);
    for (const t of targets) describeTarget(t, out);
    if (values['dry-run']) {
      out.data({ event: 'dry-run', servers: targets });
      return 0;
    }
    if (busy.length && !values.force) {
      out.data({ event: 'refused', servers: targets.map((t) => ({ ...t, action: inUse(t) ? 'refused' : 'would stop' })) });
      throw new FastTestDbError(
        'SERVER_IN_USE',
        `${busy.length} server(s) ${where} still have clients (listed above); nothing was stopped`,
        'let those runs finish or close those connections, then run fast-test-db stop again; or stop anyway with fast-test-db stop --force',
      );
    }
    if (busy.length) out.note(out.ce.yellow(`--force: cutting off the clients listed above`));
    const done: StopTarget[] = [];
    for (const t of targets) {
      const status = out.status(`stopping ${label(t)}`);
      const r = await stopTarget(t);
      if (r.action === 'failed') status.fail(`${label(t)} did not stop in time`);
      else status.succeed(`${r.action} ${label(t)}`);
      done.push(r);
    }
    out.data({ event: 'stopped', servers: done });
    const failed = done.filter((t) => t.action === 'failed').length;
    out.line(`stopped ${done.length - failed} server(s) ${where}${failed ? `; ${failed} did not stop` : ''}`);
    return failed ? 1 : 0;
  },
};

function label(t: StopTarget): string {
  const engine = engineNamed(t.engine)?.label ?? 'server';
  return `${engine}${t.port ? ` on port ${t.port}` : ''} (${t.dir})`;
}

function describeTarget(t: StopTarget, out: Parameters<Command['run']>[0]['out']): void {
  out.line(`${out.c.bold(label(t))}: ${t.state}${t.project ? `, project ${t.project}` : ''}`);
  for (const h of t.holders)
    out.line(`  ${h.foregroundStart ? 'fast-test-db start' : 'held by'} pid ${h.pid}: ${h.command || '(command line unknown)'}`);
  for (const s of t.sessions)
    out.line(
      `  client ${engineNamed(t.engine)?.server.sessionIdName ?? 'pid'} ${s.pid}: ${s.application ? `${s.application}, ` : ''}database ${s.database ?? '(none)'}, user ${s.user ?? '(unknown)'}${s.client ? `, from ${s.client}` : ''}`,
    );
  if (t.sessionsError) out.line(`  could not list its sessions: ${t.sessionsError}`);
  if (!inUse(t)) out.line(out.c.dim('  no clients'));
}
