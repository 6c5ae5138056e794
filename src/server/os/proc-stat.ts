/** One reader of /proc/<pid>/stat, for the few places that look at a process's state (the CPU bench at its own: 'self'). */
import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses),
 * so that fields[0] is the state, [11] and [12] utime and stime, [19] the start time (proc(5)
 * numbers them from 3). Undefined when the process is gone, or where there is no /proc.
 */
export function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
