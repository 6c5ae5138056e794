/**
 * The warm start: a copy of an embedded server's data directory (PostgreSQL, MariaDB, MySQL) with
 * its templates, saved when the server stops cleanly and copied back by the next cold start of this
 * project, so that a run whose migrations did not change runs neither initdb nor `migrate`.
 *
 * Why it is safe to have on by default:
 * - a template is found by its fingerprint, never by "the last one": a changed migration file or
 *   cacheKey names another template, which is built (and the copy saved again);
 * - a template built from `migrate` alone is scoped to its run (its fingerprint holds the run id),
 *   so a copy of it is never used by another run, and building one never causes a save;
 * - the copy's key holds what makes a data directory unusable or different: the binaries and
 *   their version, the initdb flags (locale), the time zone, the server settings, our version
 *   (warmCopyKey);
 * - a copy that does not start (truncated, corrupt, from a crashed save) is removed and the
 *   server starts from scratch instead (registry.ts): a bad cache costs time, never a run.
 *
 * Measured here (PostgreSQL 18, one small template): the copy is ~45 MB on disk, a restore takes
 * about the time of the initdb copy it replaces, and it saves the whole template build.
 *
 * This module is loaded by the keeper too: file-system work only.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { VERSION } from '../../util/version.js';
import { retiredPath, WARM_COPY_NAME, warmCopyKind } from './copy-names.js';

/**
 * The key a warm copy is found by: what makes a data directory unusable or different (each engine
 * names its binaries, their version and its settings in `parts`) and our version, which writes the
 * templates' markers. Another key is another copy: nothing is ever migrated from one to the next.
 */
export function warmCopyKey(parts: unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify([...parts, VERSION]))
    .digest('hex')
    .slice(0, 10);
}

/** A data directory larger than this is not saved (seed data of this size is better rebuilt than copied each run). */
export const WARM_MAX_BYTES = 512 * 1024 * 1024;
/** Saved copies kept per engine and cache directory (other binaries, locales, settings); least recently used go first. */
export const WARM_KEEP = 2;

/** The file in a server's directory that says a template worth keeping was built during its life. */
export const worthSavingFile = (stateDir: string) => join(stateDir, 'warm-save');

/**
 * Called where a template was just built on a server we own: the keeper saves the data directory
 * when the server stops. Templates scoped to one run never ask for it.
 */
export function markWorthSaving(stateDir: string | undefined): void {
  if (!stateDir || !existsSync(stateDir)) return;
  try {
    writeFileSync(worthSavingFile(stateDir), '');
  } catch {
    /* the server is going away: nothing to save */
  }
}

/**
 * The bytes a tree holds, as `du -sb` counts them: a symlink is its own few bytes, never its target
 * again (a binaries copy links libicudata.so and libicudata.so.60 to one 30 MB file), and a file
 * hard-linked under several names counts once.
 */
export function treeBytes(path: string, limit = Infinity): number {
  let total = 0;
  const seen = new Set<string>();
  const walk = (p: string) => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st || total > limit) return;
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
    else if (st.nlink < 2 || !seen.has(`${st.dev}:${st.ino}`)) {
      if (st.nlink > 1) seen.add(`${st.dev}:${st.ino}`);
      total += st.size;
    }
  };
  walk(path);
  return total;
}

/** The copy was used: it becomes the most recently used one, the last to be evicted. */
export function touchCopy(copy: string): void {
  try {
    const now = new Date();
    utimesSync(copy, now, now);
  } catch {
    /* evicted meanwhile */
  }
}

/**
 * Keeps the `keep` most recently used warm copies of `kept`'s engine next to it (a project on both
 * engines keeps two of each); initdb copies and partial writes are not counted.
 */
export function evictOldCopies(kept: string, keep = WARM_KEEP): string[] {
  const root = join(kept, '..');
  const kind = warmCopyKind(basename(kept));
  const copies = readdirSync(root)
    .filter((n) => WARM_COPY_NAME.test(n) && warmCopyKind(n) === kind)
    .map((n) => ({ path: join(root, n), at: statSync(join(root, n), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.at - a.at);
  const gone = copies.slice(keep).map((c) => c.path);
  for (const p of gone) retireCopy(p);
  return gone;
}

/**
 * Takes a cached copy out of use: renamed aside (one atomic step), then removed. A start copying
 * it at that moment sees the folder's identity change and discards what it read (restoreCompactCopy in
 * compact-copy.ts); removed in place, the copy would be read half gone, without an error.
 */
export function retireCopy(path: string): void {
  const aside = retiredPath(path, process.pid);
  try {
    renameSync(path, aside);
  } catch {
    return; // gone already
  }
  rmSync(aside, { recursive: true, force: true });
}
