/**
 * What a server killed with SIGKILL leaves outside its own folder. PostgreSQL's dynamic shared
 * memory is kept in the data directory (tuning.ts), but the postmaster also holds a small System V
 * segment (its interlock), which a clean shutdown removes and a kill leaves behind; a new server on
 * the same data directory would reuse it, but ours are never restarted on the old one.
 * `postmaster.pid` names it (line 7: key and id); it goes once no process is attached any more.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** Removes the segment when it is still the one named (same key and id) and nobody is attached. */
export function removeSegment(seg: { key: number; id: number }): boolean {
  let table: string;
  try {
    table = readFileSync('/proc/sysvipc/shm', 'utf8');
  } catch {
    return false; // not Linux
  }
  const row = table
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/).map(Number))
    .find(([key, id]) => key === seg.key && id === seg.id);
  if (row?.[6] !== 0) return false;
  return spawnSync('ipcrm', ['-m', String(seg.id)], { stdio: 'ignore', timeout: 5000 }).status === 0;
}
