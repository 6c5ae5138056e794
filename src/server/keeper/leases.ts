/**
 * The clients of a server: each process using it holds a lease, a file named after its pid in the
 * server's folder, for as long as it lives; the keeper keeps the server while any lease is live.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { leased } from '../../state.js';
import { pidAlive } from '../os/lock.js';
import { assertPrivate } from '../os/private-dir.js';
import { isKeeperOf, processesIn, signal } from '../os/processes.js';
import { listDir, readJson } from '../os/shared-files.js';
import { type KeeperPlan, type KeeperStatus, keeperFiles } from './files.js';

/**
 * Marks `pid` (this process by default) as a client of the server in `dir`: the keeper keeps the
 * server while any client lives. A runner may lease on behalf of its parent (node --test).
 */
export function takeLease(dir: string, pid = process.pid): void {
  const leases = keeperFiles(dir).leases;
  assertPrivate(dir);
  // Not `mkdir -p`: the server's folder exists (we hold or just left its lock); one made here would be unchecked.
  try {
    mkdirSync(leases);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const file = join(leases, String(pid));
  writeFileSync(file, '');
  if (pid === process.pid && !leased.has(dir)) {
    leased.add(dir);
    if (leased.size === 1)
      process.once('exit', () => {
        for (const d of leased) {
          rmSync(join(keeperFiles(d).leases, String(process.pid)), { force: true });
          stopIfAbandoned(d);
        }
      });
  }
}

/**
 * Run by a client as it exits: when the server's keeper was killed and no other client is left,
 * nobody else would stop the server, so the last client does (a signal, which needs no waiting).
 * What the server leaves on disk goes with the next run in this directory, or `clean`.
 */
function stopIfAbandoned(dir: string): void {
  try {
    const files = keeperFiles(dir);
    const status = readJson<KeeperStatus>(files.status);
    if (!status || isKeeperOf(status.keeperPid, dir)) return;
    if (liveLeases(dir).length > 0) return;
    const plan = readJson<KeeperPlan>(files.plan);
    signal(processesIn(dir, [status.serverPid]), plan?.stopSignal ?? 'SIGTERM');
  } catch {
    /* exiting anyway: the next run or clean finds what is left */
  }
}

/** The other processes holding a live lease on the server in `dir`. */
export function liveLeases(dir: string): number[] {
  const leases = keeperFiles(dir).leases;
  return listDir(leases)
    .map(Number)
    .filter((p) => p !== process.pid && pidAlive(p));
}
