/**
 * The copies of data directories an embedded PostgreSQL starts from instead of running initdb:
 * where they are for a set of binaries and settings, and how one is copied into a new server.
 */
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../errors.js';
import { initdbCopyPath, warmCopyPath } from '../../server/os/copy-names.js';
import { logger } from '../../util/log.js';
import { VERSION } from '../../util/version.js';
import type { EmbeddedSettings } from '../engine.js';
import { SERVER_TIME_ZONE } from '../tuning.js';
import type { PostgresBinaries } from './embedded-binaries.js';

const log = logger('postgres');

/**
 * Cached copies of data directories for these binaries and initdb flags:
 * - `initdb`: what initdb produced, kept by default: copying it back (~40 MB) is far quicker than
 *   running initdb, and it holds nothing of the user's. FAST_TEST_DB_INITDB_CACHE=0 turns it off.
 * - `snapshot`: the whole data directory at the last clean shutdown, templates included: the warm
 *   start (warm-cache.ts). Its key adds what the initdb copy's does not need: the server settings
 *   (max_connections among them) and our version, which writes the templates' markers.
 */
export function cachePaths(
  { resolved, cacheRoot: root }: Pick<EmbeddedSettings, 'resolved' | 'cacheRoot'>,
  bins: PostgresBinaries,
  initdbFlags: string[],
  settings: Record<string, string>,
): { initdb?: string; snapshot?: string; always?: boolean } {
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
export function restoreCopy(copy: string, dataDir: string): boolean {
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
export function chownTree(path: string, uid: number, gid: number): void {
  lchownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
}
