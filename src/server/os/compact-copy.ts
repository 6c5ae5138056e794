/**
 * Copies of stopped servers' data directories, written without the zeros their large files end
 * with and given back byte for byte. Server files are often allocated whole and filled as they go:
 * MariaDB's redo log is `redoLogSize` (256 MB) from the first start and a fresh server writes a few
 * MB of it; a PostgreSQL WAL segment is 16 MB of zeros until written. A copy that stores those
 * zeros costs a disk write and a read of all of them at every save and restore. No format is read:
 * only a run of zero bytes at the end of a file is left out, and its size is restored, so what the
 * server reads back is the file it wrote.
 *
 * Loaded by the keeper too: file-system work only.
 */
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, relative } from 'node:path';

/** Inside a copy: the files whose zero tail was left out, and the size each must have again. */
export const SIZES_FILE = '.fast-test-db-sizes.json';
/** Files smaller than this are copied whole; the tail is looked at in steps of this size. */
const STEP = 1024 * 1024;
const ZERO = Buffer.alloc(STEP);

/** The bytes of `path` up to the end of its last chunk that is not all zeros. */
function dataLength(fd: number, size: number, buf: Buffer): number {
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - STEP);
    const n = readSync(fd, buf, 0, end - start, start);
    if (n !== end - start || !buf.subarray(0, n).equals(ZERO.subarray(0, n))) return end;
    end = start;
  }
  return 0;
}

function copyPrefix(fd: number, to: string, length: number, buf: Buffer, mode: number): void {
  const out = openSync(to, 'w', mode);
  try {
    for (let at = 0; at < length; ) {
      const n = readSync(fd, buf, 0, Math.min(STEP, length - at), at);
      if (n <= 0) throw new Error(`${to}: short read at ${at}`);
      writeSync(out, buf, 0, n);
      at += n;
    }
  } finally {
    closeSync(out);
  }
  chmodSync(to, mode); // open's mode passes through the umask
}

/** Copies the tree `from` to `to` (which must not exist), large files without their zero tail. */
export function saveCompactCopy(from: string, to: string): void {
  const sizes: Record<string, number> = {};
  const buf = Buffer.alloc(STEP);
  const walk = (src: string, dst: string) => {
    const st = lstatSync(src);
    if (st.isDirectory()) {
      mkdirSync(dst, { mode: st.mode & 0o7777 });
      for (const e of readdirSync(src)) walk(join(src, e), join(dst, e));
      chmodSync(dst, st.mode & 0o7777);
    } else if (st.isSymbolicLink()) symlinkSync(readlinkSync(src), dst);
    else if (!st.isFile())
      return; // a socket or a fifo is no part of a server's data
    else if (st.size < STEP) copyFileSync(src, dst);
    else {
      const fd = openSync(src, 'r');
      try {
        const keep = dataLength(fd, st.size, buf);
        if (keep === st.size) copyFileSync(src, dst);
        else {
          copyPrefix(fd, dst, keep, buf, st.mode & 0o7777);
          sizes[relative(from, src)] = st.size;
        }
      } finally {
        closeSync(fd);
      }
    }
  };
  walk(from, to);
  writeFileSync(join(to, SIZES_FILE), JSON.stringify(sizes));
}

/**
 * Copies a saved copy into `dataDir` (which exists, empty) and gives its files their sizes back.
 * `probe`: a file every good copy holds (PG_VERSION, ibdata1). False, with `dataDir` emptied again,
 * when the copy is missing or could not be read whole: the caller starts from scratch instead.
 */
export function restoreCompactCopy(copy: string, dataDir: string, probe: string): boolean {
  if (!existsSync(join(copy, probe))) return false;
  try {
    const before = statSync(copy);
    const sizesFile = join(copy, SIZES_FILE);
    // verbatimSymlinks: a link is copied as written, never turned into one into the cache.
    cpSync(copy, dataDir, { recursive: true, verbatimSymlinks: true, filter: (src) => src !== sizesFile });
    // A copy written before the zero tails were left out has no sizes file: it is whole already.
    const sizes = existsSync(sizesFile) ? (JSON.parse(readFileSync(sizesFile, 'utf8')) as Record<string, number>) : {};
    for (const [file, size] of Object.entries(sizes)) {
      const path = join(dataDir, file);
      if (!relative(dataDir, path).startsWith('..') && existsSync(path)) truncateSync(path, size);
      else throw new Error(`${copy} lists ${file}, which it does not hold`);
    }
    // A save or an eviction renames a copy away before removing it (warm-cache.ts retireCopy): if
    // that happened while we read, what we have is a mix of two copies, or part of one.
    const after = statSync(copy, { throwIfNoEntry: false });
    if (after?.ino !== before.ino || after.dev !== before.dev) throw new Error(`${copy} was replaced while it was being copied`);
    chmodSync(dataDir, 0o700);
    return true;
  } catch {
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
