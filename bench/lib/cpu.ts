/**
 * CPU seconds per process from /proc (Linux): what a run's processes actually used, to set a wall
 * time against what the machine's cores allow. Times are in ms.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { statFields } from '../../src/server/os/proc-stat.js';

let ticks: number | undefined;

/** Clock ticks per second of /proc's times (USER_HZ, 100 on most kernels). */
function hz(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

interface Stat {
  ppid: number;
  /** utime + stime of the process itself. */
  own: number;
  /** cutime + cstime: children it has waited for. */
  reaped: number;
}

function stat(pid: number | 'self'): Stat | undefined {
  const f = statFields(pid);
  if (!f) return undefined; // it exited while we looked
  const ms = (i: number) => (Number(f[i]) * 1000) / hz();
  return { ppid: Number(f[1]), own: ms(11) + ms(12), reaped: ms(13) + ms(14) };
}

/** CPU ms of `pid` and every descendant, living or already reaped by its parent. */
export function treeCpuMs(pid: number): number {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s) parents.set(s.ppid, [...(parents.get(s.ppid) ?? []), Number(name)]);
  }
  const walk = (p: number): number => {
    const s = stat(p);
    if (!s) return 0;
    return s.own + s.reaped + (parents.get(p) ?? []).reduce((sum, c) => sum + walk(c), 0);
  };
  return walk(pid);
}

/** CPU ms of this process's children that have exited and been waited for (with their own reaped children). */
export function reapedChildrenCpuMs(): number {
  return stat('self')?.reaped ?? 0;
}

/** CPU ms of this process itself. */
export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
