/**
 * A cross-process lock on the local machine: a directory created atomically with mkdir, holding the
 * owner's pid. A lock whose owner died (SIGKILL mid-start) is broken by the next process that waits.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FastTestDbError } from '../../errors.js';
import { writeJson } from './shared-files.js';
import { hasProcCmdline, pidAliveFromProbe } from './platform.js';
import { statFields } from './proc-stat.js';
import { sleep } from '../../util/sleep.js';

/**
 * True when `pid` runs. A zombie does not: a process whose parent died (a keeper's client, a
 * server's keeper) waits for init to reap it, which some containers' init does late or never.
 */
export function pidAlive(pid: number | undefined): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (!pidAliveFromProbe(process.platform, e as NodeJS.ErrnoException)) return false;
  }
  if (!hasProcCmdline(process.platform)) return true; // no /proc to tell a zombie by
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z'; // undefined: gone between the two looks
}

function tryTake(lockDir: string, makeParent: () => void): boolean {
  try {
    mkdirSync(lockDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // A stopped server's directory is removed by its keeper or `clean`: make it again and retry.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      makeParent();
      return false;
    }
    throw e;
  }
  // Renamed into place: a waiter reading it half-written would take pid 0 for a dead owner and break the lock.
  writeJson(join(lockDir, 'owner'), process.pid);
  return true;
}

function breakIfStale(lockDir: string): void {
  let owner: number | undefined;
  try {
    owner = Number(readFileSync(join(lockDir, 'owner'), 'utf8'));
  } catch {
    return; // just created, owner file not written yet: not stale
  }
  if (!pidAlive(owner)) rmSync(lockDir, { recursive: true, force: true });
}

/** `makeParent` makes the lock's folder again when it was removed meanwhile (a stopped server's): checked, not `mkdir -p`. */
export async function withFileLock<T>(
  lockDir: string,
  fn: () => Promise<T>,
  timeoutMs = 120_000,
  makeParent: () => void = () => mkdirSync(dirname(lockDir), { recursive: true }),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  while (!tryTake(lockDir, makeParent)) {
    breakIfStale(lockDir);
    if (Date.now() > deadline)
      throw new FastTestDbError(
        'LOCK_TIMEOUT',
        `waited ${timeoutMs} ms for the lock ${lockDir}`,
        `another process holds it; if none is running, remove ${lockDir}`,
      );
    await sleep(wait);
    wait = Math.min(wait * 2, 100);
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
