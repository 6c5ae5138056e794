/**
 * What a keeper that is gone left in its server's folder: its server and init commands stopped,
 * the shared memory and the data removed, then the folder itself.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from '../../util/log.js';
import { withFileLock } from '../os/lock.js';
import { isKeeperOf, processesIn, stopProcesses } from '../os/processes.js';
import { listDir, readJson } from '../os/shared-files.js';
import { releaseSegment, segmentsOf } from '../os/shared-memory.js';
import { removeEmptyDir } from './dirs.js';
import { type KeeperPlan, type KeeperStatus, keeperFiles } from './files.js';
import { type OwnedServerEntry, serverState } from './server-state.js';

const log = logger('server');

/**
 * Stops whatever a dead keeper left in `dir` (its server, an init command) and removes its data.
 * The caller holds the directory's lock. A live keeper is asked to stop first (SIGTERM), and
 * killed if it does not: after this, nothing runs in `dir`, so no second server can ever share it.
 */
export async function reapLocked(dir: string): Promise<void> {
  const files = keeperFiles(dir);
  const status = readJson<KeeperStatus>(files.status);
  const plan = readJson<KeeperPlan>(files.plan);
  if (status && isKeeperOf(status.keeperPid, dir)) await stopProcesses([status.keeperPid], 'SIGTERM', 20_000);
  const processes = processesIn(dir, [status?.serverPid]);
  const segments = segmentsOf(plan?.cleanup ?? []);
  if (processes.length > 0) {
    log('stopping %s left running in %s by a keeper that is gone', processes.join(', '), dir);
    await stopProcesses(processes, plan?.stopSignal ?? 'SIGTERM');
  }
  for (const seg of segments)
    if (await releaseSegment(seg, { creator: status?.serverPid, serverUid: plan?.server.uid }))
      log('removed the shared memory segment %d a killed server left', seg.id);
  for (const p of plan?.cleanup ?? []) rmSync(p, { recursive: true, force: true });
  // Everything else goes too, except the lock the caller holds.
  for (const name of listDir(dir)) if (join(dir, name) !== files.lock) rmSync(join(dir, name), { recursive: true, force: true });
}

/**
 * Removes a server directory whose keeper is gone: stops what it left running, removes its data and
 * then the directory itself. Re-reads the state under the lock; returns what it found there, so
 * that a server restarted meanwhile is left alone.
 */
export async function reapServer(dir: string): Promise<OwnedServerEntry> {
  const files = keeperFiles(dir);
  const entry = await withFileLock(
    files.lock,
    async () => {
      const now = serverState(dir);
      if (now.state === 'orphaned' || now.state === 'stopped') await reapLocked(dir);
      return now;
    },
    30_000,
  );
  removeEmptyDir(dir);
  return entry;
}
