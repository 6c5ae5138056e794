/**
 * The warm copy an embedded MariaDB or MySQL starts from instead of initialising its data
 * directory and building its templates again: the whole data directory saved at the last clean
 * stop (warm-cache.ts says when), found by a key of everything that makes one unusable or different.
 *
 * Why the whole directory and not a dump of the templates: restoring it (~16 MB for the system
 * tables and a 30-table template, without the redo log's unwritten 250 MB, compact-copy.ts) takes
 * less than the initialisation alone, and a dump would still pay the initialisation and then replay
 * every CREATE TABLE (docs/warm-start.md has the figures).
 */
import { restoreCompactCopy } from '../../server/os/compact-copy.js';
import { warmCopyPath } from '../../server/os/copy-names.js';
import { warmCopyKey } from '../../server/os/warm-cache.js';
import { logger } from '../../util/log.js';
import type { EmbeddedSettings } from '../engine.js';
import { parseMysqlVersion } from './tuning.js';

const log = logger('mysql');

/** A file every data directory of a started InnoDB server holds: no copy without it is tried. */
const PROBE = 'ibdata1';

/**
 * Where this server's warm copy is: keyed by the binary, its whole version line, the server flags
 * (redo log and buffer pool sizes, max_connections, the character set) and the time zone the server
 * runs in; warmCopyKey adds our version, which writes the templates' markers.
 */
export function warmCopy(
  { resolved, cacheRoot }: Pick<EmbeddedSettings, 'resolved' | 'cacheRoot'>,
  bin: { path: string; flavor: string; version: string; fullVersion: string },
  flags: string[],
  timeZone: string,
): { path?: string; always?: boolean } {
  if (resolved.cacheDataDir === 'off') return {};
  const key = warmCopyKey([bin.path, bin.flavor, bin.fullVersion, flags, timeZone]);
  return { path: warmCopyPath(cacheRoot, 'mysql', parseMysqlVersion(bin.version)[0], key), always: resolved.cacheDataDir === 'always' };
}

/** Copies the warm copy into the (empty) data directory; false, with it empty, when there is none or it is unreadable. */
export function restoreWarmCopy(copy: string, dataDir: string): boolean {
  const restored = restoreCompactCopy(copy, dataDir, PROBE);
  log(restored ? 'data directory restored from %s' : 'no usable copy at %s', copy);
  return restored;
}
