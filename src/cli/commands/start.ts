/** `fast-test-db start`: the project's tuned server in the foreground, in place of `docker run`. */
import { engineFor } from '../../engines/index.js';
import { describeTuning } from '../describe.js';
import { stopOwnedServer } from '../../server/registry.js';
import { serverState } from '../../server/keeper/server-state.js';
import { parseDuration } from '../duration.js';
import { resolveAdapter } from '../../options/config.js';
import { explainEngineMismatch } from '../../core/engine-mismatch.js';
import { FastTestDbError } from '../../errors.js';
import { prepareTemplate } from '../../core/database.js';
import type { ServerInfo } from '../../types.js';
import { COMMON_HELP, COMMON_OPTIONS, str, type Command } from '../command.js';
import { DEFAULT_HANDED_OUT, handOutDatabase, handOutName } from '../hand-out.js';
import { acquire, isRunning, ownedRequest, type OwnedRequest } from '../owned.js';
import { parseCount, SERVER_HELP, SERVER_OPTIONS, serverOptions } from '../options.js';
import { dropOurDatabases } from '../../core/drop.js';
import { withClient } from '../../engines/connect.js';

export const startCommand: Command = {
  name: 'start',
  summary: 'run a tuned server in the foreground and print its URL; Ctrl-C stops it and removes its data',
  help: `Usage: fast-test-db start [options]

Starts the project's own server: PostgreSQL (or MySQL/MariaDB) with durability off and its data on
tmpfs, the same server a test run in this directory joins. Prints the URL of a fresh, empty
database on it (never a system database) and stays in the foreground. Ctrl-C stops it and removes its data. When the server was already running (a test run
or another start), this joins it and Ctrl-C only lets go of it.

Options:
${SERVER_HELP}
  -p, --port N      listen on this port (default: a free one); when this project's server already
                    runs on another port: PORT_IN_USE (fast-test-db stop it first, or use its port)
  --database NAME   the empty database the URL names (default ${DEFAULT_HANDED_OUT})
  --user NAME       a login for it that may create databases (default: the server's admin)
  --password PW     that login's password (default: one made for this server, in the URL printed)
  --reuse           let the server outlive this command: Ctrl-C lets go of it and it stops by
                    itself after --idle-timeout without clients (test runs and \`url\` reuse it)
  --idle-timeout D  with --reuse, e.g. 30m (default 15m)
  --data-cache      PostgreSQL: start from the data directory saved by an earlier clean stop (no
                    initdb, templates already built), and save it again when Ctrl-C stops the server;
                    test databases are dropped first, so the copy holds the templates only
  --cache-dir DIR   where --data-cache keeps it (default node_modules/.cache/fast-test-db)
  --skip-template   do not build the template that fast-test-db.config.* describes (built by
                    default when the config has migrate, an adapter or migrationFiles, so that
                    test runs only clone)
${COMMON_HELP}

Examples:
  fast-test-db start
  fast-test-db start --engine mysql --port 3307
  fast-test-db start --port 5432 --user test --password test --database test   # in place of a compose service
  fast-test-db start --reuse --json      # CI: read the URL from the first line`,
  options: {
    ...COMMON_OPTIONS,
    ...SERVER_OPTIONS,
    port: { type: 'string', short: 'p' },
    database: { type: 'string' },
    user: { type: 'string' },
    password: { type: 'string' },
    reuse: { type: 'boolean' },
    'idle-timeout': { type: 'string' },
    'data-cache': { type: 'boolean' },
    'cache-dir': { type: 'string' },
    'skip-template': { type: 'boolean' },
  },
  async run({ values, out, signal, io }) {
    const port = parseCount('port', str(values.port));
    const idle = str(values['idle-timeout']);
    const { engineGiven, ...base } = await serverOptions(values, io.env);
    // The schema first: an adapter says which engine it is for, before a server of the wrong one starts.
    const wantsTemplate = !values['skip-template'] && Boolean(base.migrate || base.seed || base.adapter || base.migrationFiles);
    const schema = wantsTemplate ? await resolveAdapter({ ...base, engine: engineGiven ? base.engine : undefined }) : undefined;
    const options = {
      ...base,
      engine: schema?.engine ?? base.engine,
      reuse: Boolean(values.reuse),
      idleTimeoutMs: idle ? parseDuration(idle) : undefined,
      cacheDataDir: values['data-cache'] ? true : base.cacheDataDir,
      cacheDir: str(values['cache-dir']) ?? base.cacheDir,
    };
    handOutName(options.engine, str(values.database));
    if (values['data-cache'] && !engineFor(options.engine).server.dataCache)
      throw new FastTestDbError(
        'BAD_OPTION',
        '--data-cache is for the embedded PostgreSQL only',
        'leave --data-cache out for MySQL/MariaDB: its templates are rebuilt from the cached DDL quickly',
      );
    const req = await ownedRequest(options.engine, options, port);
    // The port asked for, or nothing: a URL on another port would not match the app's .env.
    if (port) refuseOtherPort(req, serverState(req.dir).info?.port, port);
    const { server, joined } = await acquire(req, out, (joined) => (joined ? `joined the running ${req.label}` : `started ${req.label}`));
    const engine = engineFor(server.engine);
    const roles = await engine.load();
    // The library's URL (admin, for FAST_TEST_DB_URL) and the app's: a database of its own.
    const adminUrl = engine.urls.url(server, server.adminDatabase);
    const { report, handed } = await withClient(roles.connector, server, async (admin) => ({
      report: await roles.inspector.describe(admin, server),
      handed: await handOutDatabase(roles, admin, server, {
        database: str(values.database),
        user: str(values.user),
        password: str(values.password),
      }),
    }));
    const url = handed.url;
    // A server that came up between the check above and the join.
    if (port) refuseOtherPort(req, server.port, port);
    let template: { name: string; built: boolean } | undefined;
    if (schema) {
      const building = out.status('building the template');
      try {
        // The server just acquired, whatever URL the config names: this is the server tests will join.
        const prepared = await prepareTemplate({ ...options, ...schema, engine: options.engine, url: undefined, server: 'embedded' });
        template = { name: prepared.template.name, built: prepared.template.built };
        building.succeed(template.built ? `built template ${template.name}` : `template ${template.name} was already built`);
      } catch (e) {
        building.fail('the template build failed');
        throw explainEngineMismatch(e, server.engine);
      }
    }
    out.data({
      event: 'ready',
      url,
      adminUrl,
      database: handed.database,
      user: handed.user,
      joined,
      server,
      tuned: report.tuned,
      settings: report.settings,
      template,
    });
    out.line(`${out.c.bold(url)}`);
    out.line(`  ${req.label}, ${describeTuning(report)}, data in ${server.stateDir}`);
    if (template) out.line(`  template ${template.name}${template.built ? ' (built now)' : ''}`);
    out.line(
      `  an empty database ${handed.database}${handed.created ? '' : ' (made by an earlier start: kept as it is)'}, login ${handed.user}`,
    );
    out.line(`  export FAST_TEST_DB_URL=${adminUrl}   # for fast-test-db itself: clones per worker on this server`);
    const leaving =
      joined || options.reuse
        ? 'Ctrl-C lets go of it; fast-test-db stop stops it'
        : 'Ctrl-C (or fast-test-db stop) stops it and removes its data';
    out.line(out.c.dim(`  ${leaving}`));

    // Stay until Ctrl-C, or until the server goes away under us.
    const reason = await new Promise<'signal' | 'gone'>((res) => {
      const timer = setInterval(() => {
        if (!isRunning(server.stateDir!)) {
          clearInterval(timer);
          res('gone');
        }
      }, 500);
      signal.addEventListener('abort', () => (clearInterval(timer), res('signal')), { once: true });
    });
    if (reason === 'gone') {
      out.note(out.ce.red(`the server stopped by itself; see ${server.stateDir}/server.log if it is still there`));
      out.data({ event: 'gone' });
      return 1;
    }
    if (joined || options.reuse) {
      out.note(
        joined
          ? 'let go of the server; it keeps running for its other clients'
          : 'let go of the server; it stops by itself once idle, or now with fast-test-db stop',
      );
      out.data({ event: 'released' });
      return 0;
    }
    if (options.cacheDataDir) {
      const dropped = await dropTestDatabases(server);
      if (dropped) out.note(`dropped ${dropped} test database(s) so that the saved data holds templates only`);
    }
    const stopping = out.status(options.cacheDataDir ? 'stopping and saving the data directory' : 'stopping');
    const stopped = await stopOwnedServer(server.stateDir!);
    if (stopped) stopping.succeed(options.cacheDataDir ? 'stopped; data saved for the next start, then removed' : 'stopped; data removed');
    else stopping.fail('the server did not stop in time');
    out.data({ event: stopped ? 'stopped' : 'stop-failed' });
    return stopped ? 0 : 1;
  },
};

/** The project's server already listens on another port: it cannot also listen on `asked`. */
function refuseOtherPort(req: OwnedRequest, running: number | undefined, asked: number): void {
  if (running === undefined || running === asked || !isRunning(req.dir)) return;
  throw new FastTestDbError(
    'PORT_IN_USE',
    `this project's ${req.label} is already running on port ${running} (${req.dir}), so it cannot serve --port ${asked}`,
    `stop it first (fast-test-db stop), then run this again to get port ${asked}; or use its port: --port ${running}`,
  );
}

/** Our worker databases on this server (not templates), dropped before its data directory is saved. */
async function dropTestDatabases(server: ServerInfo): Promise<number> {
  const roles = await engineFor(server.engine).load();
  return (await withClient(roles.connector, server, (admin) => dropOurDatabases(roles, admin, ''))).length;
}
