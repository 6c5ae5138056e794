/**
 * Where the bench keeps its servers: a disk directory for the "before" (data on a real disk, as the
 * write-ups' Docker volumes were) and a tmpfs directory for the rest. Both are ours alone and removed
 * at exit, so nothing the bench does can touch a user's own servers or the library's shared registry.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const TMPFS_MAGIC = 0x01021994;

export function isTmpfs(path: string): boolean {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

export interface BenchDirs {
  /** On disk: durable servers' data. */
  disk: string;
  diskIsTmpfs: boolean;
  /** On tmpfs when the machine has one: every other server (and the registry of servers the library starts). */
  shm: string;
  shmIsTmpfs: boolean;
}

let made: BenchDirs | undefined;

export function benchDirs(): BenchDirs {
  if (made) return made;
  // The OS temp dir is a disk here; where it is tmpfs, fall back to a cache folder in the project.
  let diskBase = process.env.FAST_TEST_DB_BENCH_DISK ?? tmpdir();
  if (isTmpfs(diskBase)) diskBase = resolve('node_modules/.cache');
  mkdirSync(diskBase, { recursive: true });
  const disk = mkdtempSync(join(diskBase, 'ftdb-bench-'));
  const shmBase = isTmpfs('/dev/shm') ? '/dev/shm' : tmpdir();
  const shm = mkdtempSync(join(shmBase, 'ftdb-bench-'));
  // Servers run as an unprivileged user when we are root: they must be able to reach their data dir.
  for (const d of [disk, shm]) chmodSync(d, 0o755);
  made = { disk, diskIsTmpfs: isTmpfs(disk), shm, shmIsTmpfs: isTmpfs(shm) };
  process.once('exit', removeBenchDirs);
  return made;
}

export function removeBenchDirs(): void {
  if (!made) return;
  for (const d of [made.disk, made.shm]) rmSync(d, { recursive: true, force: true });
}
