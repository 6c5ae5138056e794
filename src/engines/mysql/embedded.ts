/**
 * An embedded MySQL or MariaDB: the system's mysqld/mariadbd (or one in `binDir`), a data
 * directory under the server's own tmpfs directory, the tuning flags from tuning.ts on the
 * command line (never in a config file: `--no-defaults` also keeps /etc/mysql out).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { FastTestDbError, messageOf } from '../../errors.js';
import { classifyDriverError } from '../errors.js';
import { logger } from '../../util/log.js';
import { DEFAULT_MAX_CONNECTIONS } from '../tuning.js';
import { mysqlServerFlags, parseMysqlVersion, type MysqlFlavor } from './tuning.js';
import { foundBinaries } from '../../state.js';
import type { ServerInfo } from '../../types.js';
import type { Command, EmbeddedServer, LaunchPlan, PlanContext, ReadyWatch } from '../../server/os/launch.js';
import { socketDirFor, stopMethod } from '../../server/os/platform.js';
import { assertReachable, type ServerUser, unprivilegedUser } from '../../server/os/user.js';
import { freshPrivateDir } from '../../server/os/private-dir.js';
import { describeServer } from '../connect.js';
import type { BinarySettings, EmbeddedSettings, Engine } from '../engine.js';
import { sleep } from '../../util/sleep.js';
import { lit } from './quote.js';
import { newPassword, passwordFile, writePasswordFile } from '../../server/os/password.js';
import { chownTree } from '../../server/os/compact-copy.js';
import { touchCopy } from '../../server/os/warm-cache.js';
import { restoreWarmCopy, warmCopy } from './embedded-copies.js';

const log = logger('mysql');
/** The server's time zone (its env): a data directory's timestamps and a warm copy's key depend on it. */
const SERVER_TZ = 'UTC';

export interface MysqlBinary {
  /** mysqld or mariadbd. */
  path: string;
  flavor: MysqlFlavor;
  /** e.g. '10.11.19' */
  version: string;
  /** The whole --version line, e.g. '10.11.19-MariaDB-0+deb12u1'. */
  fullVersion: string;
}

const SERVER_NAMES = ['mariadbd', 'mysqld'];
const SYSTEM_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/local/mysql/bin', '/usr/local/bin', '/opt/homebrew/bin', '/opt/homebrew/sbin'];

/** Reads flavor and version from `mysqld --version`. */
export function parseVersionLine(line: string): { flavor: MysqlFlavor; version: string; fullVersion: string } | undefined {
  const m = /\bVer\s+(\d+\.\d+\.\d+)(\S*)/.exec(line) ?? /(\d+\.\d+\.\d+)(\S*)/.exec(line);
  if (!m) return undefined;
  return { flavor: /mariadb/i.test(line) ? 'mariadb' : 'mysql', version: m[1]!, fullVersion: m[1]! + m[2]! };
}

function probe(path: string): MysqlBinary | undefined {
  try {
    const out = execFileSync(path, ['--no-defaults', '--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    });
    const v = parseVersionLine(out);
    return v ? { path, ...v } : undefined;
  } catch (e) {
    log(`${path} --version failed: ${messageOf(e)}`);
    return undefined;
  }
}

/**
 * The server binaries that exist, in the order they are tried: binDir's (the option, or
 * FAST_TEST_DB_BIN_DIR), else the entry's PATH, then the usual system directories. None is run.
 */
function candidates({ resolved, env }: BinarySettings): string[] {
  const dirs = resolved.binDir ? [resolve(resolved.binDir)] : [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...SYSTEM_DIRS];
  return dirs.flatMap((dir) => SERVER_NAMES.map((n) => join(dir, n))).filter((p) => existsSync(p));
}

function notFound({ resolved }: BinarySettings): FastTestDbError {
  return resolved.binDir
    ? new FastTestDbError(
        'BINARY_NOT_FOUND',
        `no working mariadbd or mysqld in binDir ${resolve(resolved.binDir)}`,
        'point binDir (FAST_TEST_DB_BIN_DIR) at the directory holding mariadbd or mysqld',
      )
    : new FastTestDbError(
        'BINARY_NOT_FOUND',
        `no MySQL/MariaDB server binary found (looked for mariadbd and mysqld on PATH and in ${SYSTEM_DIRS.join(', ')})`,
        "install one (Debian/Ubuntu: apt-get install mariadb-server; macOS: brew install mariadb), or pass binDir, or use url/FAST_TEST_DB_URL, or server: 'container'",
      );
}

/** The first candidate that answers `--version`. What was searched for is remembered; an explicit binDir is checked each time. */
export function findMysqlBinary(settings: BinarySettings): MysqlBinary {
  const found = settings.resolved.binDir ? undefined : (foundBinaries.get('mysql') as MysqlBinary | undefined);
  if (found) return found;
  for (const path of candidates(settings)) {
    const b = probe(path);
    if (!b) continue;
    if (!settings.resolved.binDir) foundBinaries.set('mysql', b);
    return b;
  }
  throw notFound(settings);
}

/** The system-table scripts `mariadb-install-db` feeds to `mariadbd --bootstrap`, when they are where we expect. */
function mariadbSystemSql(bin: MysqlBinary): string[] | undefined {
  const base = dirname(dirname(bin.path));
  for (const dir of [join(base, 'share', 'mysql'), join(base, 'share', 'mariadb'), join(base, 'share')]) {
    const files = ['mysql_system_tables.sql', 'mysql_performance_tables.sql', 'mysql_system_tables_data.sql'].map((f) => join(dir, f));
    if (files.every((f) => existsSync(f))) return files;
  }
  return undefined;
}

function installDbScript(bin: MysqlBinary): string | undefined {
  const dir = dirname(bin.path);
  for (const p of [
    join(dir, 'mariadb-install-db'),
    join(dirname(dir), 'bin', 'mariadb-install-db'),
    join(dirname(dir), 'scripts', 'mariadb-install-db'),
    '/usr/bin/mariadb-install-db',
    join(dirname(dir), 'bin', 'mysql_install_db'),
  ])
    if (existsSync(p)) return p;
  return undefined;
}

/** The embedded MySQL or MariaDB that `settings` describe: its binary known to be there, nothing run yet. */
export function embeddedServer(settings: EmbeddedSettings, engine: Engine): EmbeddedServer {
  // A missing binary fails here, before anything is planned; running one (`--version`, ~23 ms in a
  // CPU profile on a 2-core machine) is left to what prints the label and to the plan: a join does without.
  if (candidates(settings).length === 0) throw notFound(settings);
  const { options } = settings;
  return {
    get label() {
      const bin = findMysqlBinary(settings);
      return `${bin.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${bin.version}`;
    },
    identity: [settings.resolved.binDir, options.bufferPoolSize, options.redoLogSize, options.maxConnections],
    plan: (ctx) => planEmbeddedMysql(ctx, settings, engine, true),
  };
}

/**
 * `engine`: MySQL's, for its stop signal and the roles that describe the started server. `warm`:
 * start from the project's warm copy when there is one, and save one at a clean stop (off for a
 * caller that changes the flags, whose data directory the key would not describe).
 */
export async function planEmbeddedMysql(
  ctx: PlanContext,
  settings: Pick<EmbeddedSettings, 'resolved' | 'env'> & Partial<Pick<EmbeddedSettings, 'cacheRoot'>>,
  engine: Engine,
  warm = false,
): Promise<LaunchPlan> {
  const bin = findMysqlBinary(settings);
  const home = join(ctx.dir, 'mysql');
  const dataDir = join(home, 'data');
  const tmpDir = join(home, 'tmp');
  // Short by construction: beside the data when the path fits the platform's limit, else under /tmp.
  // (Windows: mysqld listens on TCP and a named pipe; the flag is harmless there.)
  const socketDir = socketDirFor(process.platform, home, 'mysqld.sock') ?? home;
  const socket = join(socketDir, 'mysqld.sock');
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { mode: 0o755 });
  mkdirSync(tmpDir, { mode: 0o700 });
  const user = unprivilegedUser(settings.resolved.runAs);
  // The server's account must reach its data (a dataRoot under /root would hide it); the binary is system-wide.
  if (user) assertReachable(dataDir, user);
  // Only the server's account (and root) may reach the socket: other local users never get to knock.
  // Outside our folder (under /tmp) when the path is long: made anew, and only ever over one of ours.
  if (socketDir !== home) freshPrivateDir(socketDir, 0o700, user?.uid);
  const password = newPassword();
  writePasswordFile(ctx.dir, password);
  // SQL holding the password, read by the server's account: its own, 0600 (chowned below).
  const secretFiles: string[] = [];
  const writeSecretSql = (file: string, text: string) => {
    writeFileSync(file, text, { mode: 0o600 });
    secretFiles.push(file);
  };
  const as: Pick<Command, 'uid' | 'gid' | 'cwd' | 'env'> = {
    uid: user?.uid,
    gid: user?.gid,
    cwd: home,
    env: { TZ: SERVER_TZ, LC_ALL: 'C' },
  };
  const flags = mysqlServerFlags({
    flavor: bin.flavor,
    version: bin.version,
    bufferPoolSize: ctx.options.bufferPoolSize,
    redoLogSize: ctx.options.redoLogSize,
    maxConnections: ctx.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
  });
  // --no-defaults must come first; basedir lets a tarball install find its messages and plugins.
  const common = ['--no-defaults', `--basedir=${dirname(dirname(bin.path))}`, `--datadir=${dataDir}`, `--tmpdir=${tmpDir}`];
  const init: Command[] = [];
  const serverArgs = [
    ...common,
    `--port=${ctx.port}`,
    '--bind-address=127.0.0.1',
    `--socket=${socket}`,
    `--pid-file=${join(home, 'mysqld.pid')}`,
    ...flags,
  ];

  const v = parseMysqlVersion(bin.version);
  const info: ServerInfo = {
    engine: 'mysql',
    flavor: bin.flavor,
    version: bin.fullVersion,
    major: v[0],
    provider: 'embedded',
    owned: true,
    tuned: false,
    host: '127.0.0.1',
    port: ctx.port,
    socket,
    user: 'root',
    password,
    adminDatabase: 'mysql',
  };
  // Where it will listen is known now: a runner's workers can have their URLs, and start, during the copy below.
  await ctx.announce?.(info);
  const stop = stopMethod(process.platform, engine.server.stopSignal);
  const copy =
    warm && settings.cacheRoot ? warmCopy({ resolved: settings.resolved, cacheRoot: settings.cacheRoot }, bin, flags, SERVER_TZ) : {};
  let restoredFrom: string | undefined;
  if (copy.path) {
    mkdirSync(dataDir, { mode: 0o700 });
    if (restoreWarmCopy(copy.path, dataDir)) {
      restoredFrom = copy.path;
      touchCopy(copy.path);
    } else rmSync(dataDir, { recursive: true, force: true });
  }
  if (restoredFrom) {
    // The copy's accounts hold the password of the server it was saved from: the init file sets
    // this one's before the server lets anyone in, as after mariadb-install-db.
    const initFile = join(home, 'init.sql');
    writeSecretSql(initFile, passwordInitSql(bin, password));
    serverArgs.push(`--init-file=${initFile}`);
    if (user) chownTree(dataDir, user.uid, user.gid);
  } else {
    const setup = initialization(bin, { home, dataDir, common, flags, user, as, password, writeSecretSql });
    init.push(...setup.init);
    serverArgs.push(...setup.serverArgs);
  }
  if (user)
    for (const d of [home, tmpDir, ...(existsSync(dataDir) ? [dataDir] : []), ...(socketDir !== home ? [socketDir] : [])])
      chownSync(d, user.uid, user.gid);
  if (user) for (const f of secretFiles) chownSync(f, user.uid, user.gid);
  log(`plan: ${bin.flavor} ${bin.version} in ${home}, port ${ctx.port}`);
  return {
    init,
    server: { command: bin.path, args: serverArgs, ...as },
    stopSignal: stop.signal,
    cleanup: [...(socketDir.startsWith(home) ? [home] : [home, socketDir]), passwordFile(ctx.dir)],
    // Saved only after a clean stop: a killed server's files are not a copy anyone should start from.
    snapshot: copy.path && stop.clean ? { from: dataDir, to: copy.path, always: copy.always } : undefined,
    restoredFrom,
    expected: info,
    ready: (watch) => waitForMysql(engine, info, watch),
  };
}

/**
 * How the system tables and the root password come to be, per flavor: MariaDB bootstraps from its
 * system-table scripts (or runs mariadb-install-db), MySQL initializes itself; where the password
 * cannot be set during init, an init file given to the server sets it before it lets anyone in.
 */
function initialization(
  bin: MysqlBinary,
  p: {
    home: string;
    dataDir: string;
    common: string[];
    flags: string[];
    user: ServerUser | undefined;
    as: Pick<Command, 'uid' | 'gid' | 'cwd' | 'env'>;
    password: string;
    writeSecretSql(file: string, text: string): void;
  },
): { init: Command[]; serverArgs: string[] } {
  const { home, dataDir, common, flags, user, as, password, writeSecretSql } = p;
  const init: Command[] = [];
  const serverArgs: string[] = [];
  if (bin.flavor === 'mariadb') {
    const sql = mariadbSystemSql(bin);
    if (sql) {
      // What mariadb-install-db does, minus the help tables and the sys schema: half the time.
      const bootstrap = join(home, 'bootstrap.sql');
      writeSecretSql(
        bootstrap,
        [
          'CREATE DATABASE IF NOT EXISTS mysql;',
          'USE mysql;',
          'SET @auth_root_socket=NULL;',
          ...sql.map((f) => readFileSync(f, 'utf8')),
          mariadbRootPassword(password),
        ].join('\n'),
      );
      mkdirSync(dataDir, { mode: 0o700 });
      init.push({
        command: '/bin/sh',
        // The keeper gives commands no stdin; the script arrives through a redirect.
        args: [
          '-c',
          'exec "$0" "$@" < "$FTDB_BOOTSTRAP_SQL"',
          bin.path,
          ...common,
          '--bootstrap',
          '--log-warnings=0',
          '--enforce-storage-engine=',
          ...flags,
        ],
        ...as,
        env: { ...as.env, FTDB_BOOTSTRAP_SQL: bootstrap },
      });
    } else {
      const script = installDbScript(bin);
      if (!script)
        throw new FastTestDbError(
          'BINARY_NOT_FOUND',
          `found ${bin.path} but neither its system-table scripts nor mariadb-install-db`,
          'install the full MariaDB server package, or pass binDir pointing at a complete installation',
        );
      init.push({
        command: script,
        args: [
          '--no-defaults',
          `--basedir=${dirname(dirname(bin.path))}`,
          `--datadir=${dataDir}`,
          '--auth-root-authentication-method=normal',
          '--skip-test-db',
          '--skip-name-resolve',
          ...(user ? [`--user=${user.name}`] : []),
          ...flags,
        ],
        cwd: home,
        env: as.env,
      });
      // mariadb-install-db made root without a password: the server sets it before it lets anyone in.
      const initFile = join(home, 'init.sql');
      writeSecretSql(initFile, passwordInitSql(bin, password));
      serverArgs.push(`--init-file=${initFile}`);
    }
  } else {
    const initFile = join(home, 'init.sql');
    writeSecretSql(initFile, passwordInitSql(bin, password));
    init.push({ command: bin.path, args: [...common, '--initialize-insecure', ...flags], ...as });
    serverArgs.push(`--init-file=${initFile}`);
  }
  return { init, serverArgs };
}

/** SQL the server runs from --init-file before it lets anyone in: root's password is this server's. */
function passwordInitSql(bin: MysqlBinary, password: string): string {
  if (bin.flavor === 'mariadb') return `${mariadbRootPassword(password)}\nFLUSH PRIVILEGES;\n`;
  // MySQL creates only root@localhost; tests and ORMs connect over TCP to 127.0.0.1.
  const pw = lit(password);
  return [
    `ALTER USER 'root'@'localhost' IDENTIFIED BY ${pw};`,
    `CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ${pw};`,
    `ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY ${pw};`,
    "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;",
    '',
  ].join('\n');
}

/**
 * Every root account the system tables made (localhost, 127.0.0.1, ::1, the host name) gets the
 * password, and anonymous accounts go. Written against the table itself: in bootstrap mode the
 * grant tables are not loaded, so ALTER USER is not available there.
 */
function mariadbRootPassword(password: string): string {
  const pw = lit(password);
  return [
    "DELETE FROM mysql.global_priv WHERE User = '';",
    `UPDATE mysql.global_priv SET Priv = JSON_SET(Priv, '$.plugin', 'mysql_native_password', '$.authentication_string', PASSWORD(${pw})) WHERE User = 'root';`,
  ].join('\n');
}

function startFailure(logText: string, watch: ReadyWatch): FastTestDbError {
  const reason = watch.whyNotStarted(logText);
  if (
    /Can't start server: Bind on TCP\/IP port|Address already in use|Do you already have another (mysqld|mariadbd) server running/i.test(
      logText,
    )
  )
    return new FastTestDbError(
      'PORT_IN_USE',
      `MySQL/MariaDB could not bind its port:\n${reason}`,
      'start again (a free port is picked each time), or stop whatever listens on it',
    );
  if (/No space left on device|errno: 28|OS error: 28/i.test(logText))
    return new FastTestDbError(
      'TMPFS_FULL',
      `MySQL/MariaDB ran out of space:\n${reason}`,
      'free space in /dev/shm, lower redoLogSize, or set dataRoot (FAST_TEST_DB_DATA_ROOT) to a larger disk',
    );
  if (/unknown (option|variable)/i.test(logText))
    return new FastTestDbError(
      'SERVER_START_FAILED',
      `MySQL/MariaDB rejected a start-up flag:\n${reason}`,
      'this server version is not covered by mysqlServerFlags() in tuning.ts: report it with the version line above',
    );
  return new FastTestDbError(
    'SERVER_START_FAILED',
    `MySQL/MariaDB did not start:\n${reason}`,
    'read the server log above; DEBUG=fast-test-db:* shows each step',
  );
}

/** A driver error the server sent (it has a SQL state), as it is or as the cause of ours. */
function answeredWithError(e: unknown): boolean {
  const sqlState = (x: unknown) => typeof (x as { sqlState?: unknown } | undefined)?.sqlState === 'string';
  return sqlState(e) || (e instanceof Error && sqlState(e.cause));
}

/** How long a started server may answer logins with an error before the start counts as failed. */
const ANSWERED_ERROR_MS = 3_000;

async function waitForMysql(engine: Engine, info: ServerInfo, watch: ReadyWatch): Promise<ServerInfo> {
  const deadline = Date.now() + 120_000;
  let last: unknown;
  let answeredSince: number | undefined;
  while (Date.now() < deadline) {
    if (!watch.keeperAlive()) throw startFailure(watch.logTail(), watch);
    if (existsSync(info.socket!)) {
      try {
        const report = await describeServer(engine, info);
        return { ...info, version: report.version, major: parseMysqlVersion(report.version)[0], tuned: report.tuned };
      } catch (e) {
        last = e; // the socket appears a moment before the server accepts logins
        // The server itself answered with an error (it has a SQL state): a data directory whose
        // accounts cannot be read (a damaged warm copy) says so at every login. Said after a few
        // seconds rather than 120, so that the registry can start again without the copy.
        if (!answeredWithError(e)) answeredSince = undefined;
        else if ((answeredSince ??= Date.now()) < Date.now() - ANSWERED_ERROR_MS)
          throw classifyDriverError(e, 'MySQL/MariaDB started but refused every login');
      }
    }
    await sleep(15);
  }
  throw classifyDriverError(last ?? new Error(watch.whyNotStarted(watch.logTail())), 'MySQL/MariaDB did not answer within 120 s');
}
