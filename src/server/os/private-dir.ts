/**
 * Folders we make under a shared root (/dev/shm, the temp dir, a chosen dataRoot): anyone may create
 * a name there first, or a symlink under it, and the names we use are predictable. So each such
 * folder is made by us, and checked with lstat before anything is written, read, run or removed in
 * it: a real folder (not a link), owned by our uid, that no other user may write into. One that fails
 * is never used and never removed: UNSAFE_PATH says whose it is and what to do.
 *
 * Loaded by the keeper too: file-system work only.
 */
import { chmodSync, lstatSync, mkdirSync, rmSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { FastTestDbError } from '../../errors.js';

const uid = () => process.getuid?.();

/**
 * The mode of our folders: 0700, or 0711 when we are root, as the servers then run as an
 * unprivileged account that must walk through them (never list or write them) to its data directory.
 */
export function privateDirMode(): number {
  return uid() === 0 ? 0o711 : 0o700;
}

function unsafe(path: string, problem: string, owner: number | undefined): FastTestDbError {
  const who = owner === undefined ? '' : ` (owner uid ${owner})`;
  return new FastTestDbError(
    'UNSAFE_PATH',
    `${path}${who} ${problem}: fast-test-db will not use or remove it, as another user could have planted or could swap what is in it`,
    `find out who made it; if it is not yours, remove it as root (rm -rf -- '${path}') or choose another dataRoot (FAST_TEST_DB_DATA_ROOT)`,
  );
}

/** What is wrong with `st` as a folder of ours, or undefined. */
function problemWith(st: Stats, kind: 'folder' | 'file', owners: number[]): string | undefined {
  if (st.isSymbolicLink()) return 'is a symbolic link';
  if (kind === 'folder' ? !st.isDirectory() : !st.isFile()) return `is not a ${kind}`;
  if (!owners.includes(st.uid)) return `is another user's (we are uid ${owners[0]})`;
  if (st.mode & 0o022) return `may be written by other users (mode ${(st.mode & 0o7777).toString(8)})`;
  return undefined;
}

/** Throws UNSAFE_PATH unless `path` is absent or a folder (or file) of ours that only we may write. */
export function assertPrivate(path: string, kind: 'folder' | 'file' = 'folder'): void {
  const me = uid();
  if (me === undefined) return; // Windows: no uids; the temp dir is the user's own there
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  const problem = problemWith(st, kind, [me]);
  if (problem) throw unsafe(path, problem, st.uid);
}

/**
 * The folder that holds ours (a shared root) must not let others rename what is in it: owned by us
 * or root, or not writable by others, or sticky (/dev/shm, /tmp).
 */
export function assertSafeParent(path: string): void {
  const me = uid();
  if (me === undefined) return;
  const parent = dirname(path);
  const st = lstatSync(parent, { throwIfNoEntry: false });
  if (!st || st.uid === me || st.uid === 0 || (st.mode & 0o1000) !== 0 || (st.mode & 0o022) === 0) return;
  throw unsafe(parent, 'may be written by other users and is not sticky, so what we make in it could be swapped', st.uid);
}

/**
 * Makes `path` (its parent exists) unless it is there, checks it, and sets its mode. Never recursive:
 * a folder made on the way by `mkdir -p` would not have been checked.
 */
export function ensurePrivateDir(path: string, mode = privateDirMode()): void {
  assertSafeParent(path);
  try {
    mkdirSync(path, { mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  assertPrivate(path);
  if (uid() !== undefined) chmodSync(path, mode); // ours and not a link (just checked): the umask does not decide
}

/**
 * A folder made anew for this start (a socket folder under /tmp): what is there goes first, only if
 * it is ours, or the server account's (`alsoOwner`) that we chowned it to; never through a link.
 */
export function freshPrivateDir(path: string, mode: number, alsoOwner?: number): void {
  const me = uid();
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st && me !== undefined) {
    const owners = alsoOwner === undefined ? [me] : [me, alsoOwner];
    const problem = problemWith(st, 'folder', owners);
    if (problem) throw unsafe(path, problem, st.uid);
  }
  if (st) rmSync(path, { recursive: true, force: true });
  ensurePrivateDir(path, mode);
}
