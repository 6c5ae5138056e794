/**
 * The copies of data directories an embedded PostgreSQL starts from instead of running initdb:
 * where they are for a set of binaries and settings, and how one is copied into a new server.
 */
import { createHash } from 'node:crypto';
import { restoreCompactCopy } from '../../server/os/compact-copy.js';
import { initdbCopyPath, warmCopyPath } from '../../server/os/copy-names.js';
import { warmCopyKey } from '../../server/os/warm-cache.js';
import { logger } from '../../util/log.js';
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
  const warmKey = warmCopyKey([key, settings]);
  const warm = resolved.cacheDataDir;
  const initdbOn = resolved.initdbCache;
  return {
    initdb: initdbOn ? initdbCopyPath(root, bins.major, key) : undefined,
    snapshot: warm !== 'off' ? warmCopyPath(root, 'postgres', bins.major, warmKey) : undefined,
    always: warm === 'always',
  };
}

/**
 * Synchronous on purpose: for a data directory's ~1,000 small files cpSync took 45-55 ms here and
 * fs.promises.cp 210-230 ms; the runner's main process loses less by waiting than by yielding.
 */
export function restoreCopy(copy: string, dataDir: string): boolean {
  const restored = restoreCompactCopy(copy, dataDir, 'PG_VERSION');
  log(restored ? 'data directory restored from %s' : 'no usable copy at %s', copy);
  return restored;
}
