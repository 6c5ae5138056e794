/**
 * Which processes belong to one of our server directories. A pid read from a file is never trusted
 * alone (pids are recycled): on Linux a process counts as ours only when its command line names a
 * path inside the directory (the keeper's, the server's data directory, initdb's), read from /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pidAlive } from './lock.js';
import { hasProcCmdline } from './platform.js';
import { sleep } from '../../util/sleep.js';

const HAS_PROC = hasProcCmdline(process.platform);

/** The command line of `pid`, argument by argument (Linux); undefined once it has ended. */
export function argsOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/** True when `pid` is alive and is the keeper of `dir` (its last argument is the directory). */
export function isKeeperOf(pid: number | undefined, dir: string): boolean {
  if (!pidAlive(pid)) return false;
  if (!HAS_PROC) return true;
  const args = argsOf(pid!);
  return args?.includes(dir) ?? false;
}

/**
 * Live processes whose command line names a path inside `dir`: the server, or an init command
 * (initdb, mariadbd --bootstrap) that a killed keeper left running. Without /proc, the recorded
 * server pid is the best evidence there is.
 */
export function processesIn(dir: string, recorded: Array<number | undefined> = []): number[] {
  const inside = dir.endsWith('/') ? dir : `${dir}/`;
  return withArgument((a) => a.includes(inside), recorded);
}

/**
 * Live processes whose command line names `path` itself or a path inside it: the process of the
 * keeper that copies a staged data directory (`--save-warm-copy <path> <to>`), a server run from a
 * copy of the binaries. The same /proc evidence as processesIn; none without /proc (see canReadCommandLines).
 */
export function processesNaming(path: string): number[] {
  const inside = path.endsWith('/') ? path : `${path}/`;
  return withArgument((a) => a === path || a.includes(inside), []);
}

function withArgument(match: (arg: string) => boolean, recorded: Array<number | undefined>): number[] {
  if (!HAS_PROC) return recorded.filter((p): p is number => pidAlive(p));
  return otherPids().filter((pid) => argsOf(pid)?.some(match));
}

/** Every process in /proc but this one (Linux). */
export function otherPids(): number[] {
  return readdirSync('/proc')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid);
}

/**
 * The backends of our PostgreSQL whose process title ("postgres: <role> <database> <client> <state>")
 * names `database`, among its postmaster's children: found without a connection, which would be
 * a backend of its own (5-20 ms to start). Undefined where /proc cannot tell.
 */
export function backendsServing(postmaster: number, database: string): number[] | undefined {
  if (!HAS_PROC) return undefined;
  let children: string;
  try {
    children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8');
  } catch {
    return undefined;
  }
  const title = new RegExp(`^postgres: \\S+ ${database.replace(/\W/g, '\\$&')} `);
  return children
    .split(' ')
    .map(Number)
    .filter((pid) => pid > 0 && title.test(argsOf(pid)?.[0] ?? ''));
}

/** True where live processes' command lines can be read (Linux): elsewhere only recorded pids are evidence. */
export const canReadCommandLines = HAS_PROC;

export function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

/** Alive and not a zombie. */
export const running = pidAlive;

/** Sends `sig`, waits up to `ms`, then SIGKILLs whatever is left and waits for it to go. */
export async function stopProcesses(pids: number[], sig: NodeJS.Signals, ms = 15_000): Promise<void> {
  signal(pids, sig);
  const deadline = Date.now() + ms;
  while (pids.some(running) && Date.now() < deadline) await sleep(50);
  const left = pids.filter(running);
  signal(left, 'SIGKILL');
  const killDeadline = Date.now() + 5000;
  while (left.some(running) && Date.now() < killDeadline) await sleep(20);
}
