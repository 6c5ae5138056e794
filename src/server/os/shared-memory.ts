/**
 * What a server killed with SIGKILL leaves outside its own folder. PostgreSQL's dynamic shared
 * memory is kept in the data directory (tuning.ts), but the postmaster also holds a small System V
 * segment (its interlock), which a clean shutdown removes and a kill leaves behind; a new server on
 * the same data directory would reuse it, but ours are never restarted on the old one.
 * `postmaster.pid` names it (line 7: key and id); it can go once no process is attached any more.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../../util/sleep.js';
import { pidAlive } from './lock.js';
import { otherPids, stopProcesses } from './processes.js';

/** The System V segment a data directory's postmaster.pid names, if any. */
export function postgresSegment(dataDir: string): { key: number; id: number } | undefined {
  try {
    const line = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '';
    const [key, id] = line.trim().split(/\s+/).map(Number);
    return Number.isInteger(key) && Number.isInteger(id) && key! > 0 ? { key: key!, id: id! } : undefined;
  } catch {
    return undefined;
  }
}

/** The segments named by the postmaster.pid in each of these data directories: read before they are removed. */
export function segmentsOf(dataDirs: string[]): Segment[] {
  return dataDirs.map(postgresSegment).filter((s) => s !== undefined);
}

type Segment = { key: number; id: number };

/** The segment's row in /proc/sysvipc/shm (attached processes, creator pid and uid), or undefined if it is gone. */
function segmentRow(seg: Segment): { attached: number; creatorPid: number; creatorUid: number } | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/sysvipc/shm', 'utf8');
  } catch {
    return undefined; // not Linux
  }
  const row = table
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/).map(Number))
    .find(([key, id]) => key === seg.key && id === seg.id);
  return row && { attached: row[6]!, creatorPid: row[4]!, creatorUid: row[9]! };
}

const attachCount = (seg: Segment) => segmentRow(seg)?.attached;

/**
 * Whether the segment is one a server of ours made and left: created by our uid or the server
 * account's (`serverUid`, when the server ran as another account), by `creator` when known (the
 * postmaster we ran), and that process is dead. A segment of a server we did not start (the
 * machine's own PostgreSQL) is never removed.
 */
function leftByOurs(seg: Segment, by: SegmentOwner): boolean {
  const row = segmentRow(seg);
  if (!row) return false;
  const ours = [process.getuid?.(), by.serverUid];
  if (!ours.includes(row.creatorUid)) return false;
  if (by.creator !== undefined && row.creatorPid !== by.creator) return false;
  return !pidAlive(row.creatorPid);
}

/** Who made a segment: the postmaster's pid when known, and the account the server ran as when not ours. */
export interface SegmentOwner {
  creator?: number;
  serverUid?: number;
}

/**
 * Processes that still have the segment mapped: the killed postmaster's children (checkpointer,
 * backends), whose command lines do not name the data directory. The mapping names the key
 * (`/SYSV<key in hex>`) and carries the segment id as its inode, so both must match.
 */
function attachedProcesses(seg: { key: number; id: number }): number[] {
  const name = `/SYSV${seg.key.toString(16).padStart(8, '0')}`;
  return otherPids().filter((pid) => {
    try {
      const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
      return maps.split('\n').some((l) => l.includes(name) && l.split(/\s+/)[4] === String(seg.id));
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

/**
 * Removes the segment a killed postmaster left, once it is still the one named (same key and id).
 * Its children notice the postmaster's death and detach on their own, usually within milliseconds;
 * on a loaded machine that can take seconds, so wait for them, and stop those that stay.
 * The caller has already stopped the postmaster itself.
 */
export async function releaseSegment(seg: Segment, by: SegmentOwner, ms = 2000): Promise<boolean> {
  if (!leftByOurs(seg, by)) return false;
  const deadline = Date.now() + ms;
  let attached = attachCount(seg);
  while (attached && Date.now() < deadline) {
    await sleep(50);
    attached = attachCount(seg);
  }
  if (attached === undefined) return false;
  if (attached > 0) {
    await stopProcesses(attachedProcesses(seg), 'SIGKILL', 5000);
    if (attachCount(seg) !== 0) return false;
  }
  return spawnSync('ipcrm', ['-m', String(seg.id)], { stdio: 'ignore', timeout: 5000 }).status === 0;
}

/** Every segment that a killed server of ours left. */
export async function releaseSegments(segments: Segment[], by: SegmentOwner): Promise<void> {
  for (const seg of segments) await releaseSegment(seg, by);
}
