/**
 * CPU pairing: a test worker's thread and the server sessions of its database share one CPU.
 *
 * A test that awaits one query after another is a ping-pong between two processes. Waking a
 * process on another CPU, most of all an idle one of a virtual machine, costs more than the query:
 * on the 2-core machine of bench/, a prepared `SELECT 1` took 76 us across CPUs and 29 us with
 * both ends on one (MariaDB: 77 and 30 us; bench/round-trip.ts). Each worker gets its own CPU, so that N workers on N
 * CPUs still run side by side.
 *
 * Only where it cannot surprise: Linux; a server we started on this machine (its processes are
 * ours to schedule; never one we do not own, never a container's); a numbered runner worker whose
 * number is at most the CPUs the run may use (more workers than CPUs would lose the scheduler's
 * balancing), and not Playwright's, whose workers drive browsers. Off by default: on suites it
 * cost more than it saved (a light BEGIN/ROLLBACK Vitest suite's tests 1.12 s on, 0.72 s off; a
 * CPU-heavy one's 3.72 s and 3.46 s); `cpuPairing: true` or FAST_TEST_DB_CPU_PAIRING=1 turns it on.
 *
 * Two users. An ORM adapter's handle pairs at once the thread and every session of its ORM's pool
 * while it is open (ormHandle): its user chose the library's handle for database work. A runner
 * integration's worker looks, before each test and while tests run, at the sessions the app
 * opened on the worker's database, and pairs those that did real work (BUSY_TICKS of CPU), with
 * its thread, for the worker's life (workerPairing in runners/worker.ts): a suite of light tests
 * pays no `taskset` (a process of its own per task). Processes a paired thread starts inherit its CPU.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { engineOfFlavor, flavorLabel } from '../../engines/index.js';
import { taskset } from '../../state.js';
import { logger } from '../../util/log.js';

import { canPinCpus } from '../../server/os/platform.js';
import { statFields } from '../../server/os/proc-stat.js';
import type { ServerInfo, TestDatabaseOptions } from '../../types.js';
import { NUMBERED_FROM } from '../../options/workers.js';
import { contextOf, type Context, type EntryOptions } from '../../options/context.js';

const log = logger('cpu');

/** A database handle that can name the OS tasks (processes or threads) of its sessions on the server. */
export interface SessionSource {
  sessionTasks(): Promise<number[]>;
}

/** Something that tells when its pool opened a connection: pg's Pool ('connect'), mysql2's and mariadb's ('connection'). */
export interface PoolEvents {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off?(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener?(event: string, listener: (...args: unknown[]) => void): unknown;
}

export interface CpuPairing {
  readonly cpu: number;
  /** Pins the sessions not pinned yet; a call while one runs makes it run once more. */
  refresh(): Promise<void>;
  /** Follows a pool: each connection it opens is pinned too. */
  follow(pool: PoolEvents | undefined): void;
  /** Stops following; outside a runner integration, gives the thread its CPUs back. */
  end(): Promise<void>;
}

/**
 * A session pairs in 'busy' mode once its server process has used this much CPU (clock ticks,
 * 10 ms each): a few queries use less, a loop of hundreds more.
 */
const BUSY_TICKS = 2;

/** CPU a task has used, in clock ticks (utime + stime of /proc/<task>/stat); 0 when it is gone. */
function cpuTicks(task: number): number {
  const fields = statFields(task);
  return fields ? Number(fields[11]) + Number(fields[12]) : 0;
}

/** The CPUs a task (a process, a thread by its id, or 'thread-self') may run on, as the kernel lists them ("0-1"). */
export function allowedList(task: number | 'thread-self'): string {
  return /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync(`/proc/${task}/status`, 'utf8'))?.[1]?.trim() ?? '';
}

/** The calling thread's id (in a worker_threads worker, that thread's, not the process's). */
export const threadId = () => Number(readlinkSync('/proc/thread-self').split('/').pop());

/** "0-2,5" -> [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    for (let c = Number(m[1]); c <= Number(m[2] ?? m[1]); c++) cpus.push(c);
  }
  return cpus;
}

/**
 * The CPUs workers are paired with, in order: those this thread may use, read where no worker was
 * paired yet (a runner's global setup, or an adapter outside any runner integration). Undefined
 * when pairing is off or not on Linux. Takes the entry's context, or options and the env they are
 * resolved against.
 */
export function pairableCpus(from: EntryOptions | Context = {}, env?: NodeJS.ProcessEnv): number[] | undefined {
  if (!contextOf(from, { env, check: false }).resolved.cpuPairing || !canPinCpus(process.platform)) return undefined;
  try {
    return parseCpuList(allowedList('thread-self'));
  } catch {
    return undefined; // no /proc to read
  }
}

/** This worker's CPU among `cpus`, or why it gets none: the worker is the option's, else the one `env` names. */
export function pairingCpu(
  server: Pick<ServerInfo, 'owned' | 'provider' | 'flavor'>,
  cpus: number[] | undefined,
  options: Pick<TestDatabaseOptions, 'worker'>,
  env: NodeJS.ProcessEnv,
): { cpu: number } | { off: string } {
  if (!cpus) return { off: 'turned off, or not on Linux' };
  if (!server.owned || server.provider !== 'embedded') return { off: 'not a server started here' };
  if (!engineOfFlavor(server.flavor).server.namesSessionTasks(server.flavor))
    return { off: `${flavorLabel(server.flavor)} does not name its sessions' threads` };
  const { worker, workerSource } = contextOf({ worker: options.worker }, { env, check: false }).names;
  const first = NUMBERED_FROM[workerSource as keyof typeof NUMBERED_FROM];
  if (first === undefined || !/^\d+$/.test(worker)) return { off: `worker "${worker}" is not a numbered runner worker` };
  const slot = Math.max(0, Number(worker) - first);
  if (slot >= cpus.length) return { off: `worker ${worker} of more workers than the ${cpus.length} CPUs` };
  return { cpu: cpus[slot]! };
}

/** Sets the affinity of one task; false when it could not (no taskset, the task is gone). */
function setAffinity(task: number, cpus: string): Promise<boolean> {
  if (taskset.missing) return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile('taskset', ['-pc', cpus, String(task)], (err) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        taskset.missing = true;
        log('taskset not found: no CPU pairing');
      } else if (err) log('taskset %s %d: %s', cpus, task, err.message.split('\n')[0]);
      resolve(!err);
    });
  });
}

/**
 * Pins the calling thread (in a worker_threads worker, that thread) to `cpu`, unless it is already:
 * a runner's worker pairs once, however many test files it runs. Returns the list to give back.
 */
async function pinThread(cpu: number): Promise<{ thread: number; before: string } | undefined> {
  const thread = threadId();
  const before = allowedList('thread-self');
  if (before === String(cpu)) return { thread, before };
  if (!(await setAffinity(thread, String(cpu)))) return undefined;
  log('thread %d paired with CPU %d', thread, cpu);
  return { thread, before };
}

/**
 * Pairs this thread and the sessions `source` names with this worker's CPU, or returns undefined
 * (with the reason in the debug log) where pairing does not apply. 'eager': the thread now and
 * every session; 'busy': a session once it used BUSY_TICKS of CPU, and the thread with the first.
 * Inside a runner integration the thread stays paired for the worker's life; outside one, end()
 * gives it back.
 */
export async function pairCpu(
  server: ServerInfo,
  source: SessionSource,
  from: EntryOptions | Context = {},
  mode: 'eager' | 'busy' = 'eager',
): Promise<CpuPairing | undefined> {
  const ctx = contextOf(from, { check: false });
  // Inside a runner integration, its global setup decided for the run and read the CPUs before any
  // worker was paired; this handle's own option can still turn pairing off.
  const { handoff } = ctx;
  const cpus = !handoff ? pairableCpus(ctx) : ctx.resolved.cpuPairing ? handoff.cpus : undefined;
  const decision = pairingCpu(server, cpus, ctx.options, ctx.env);
  if ('off' in decision) {
    log('no CPU pairing: %s', decision.off);
    return undefined;
  }
  const { cpu } = decision;
  let thread: Promise<{ thread: number; before: string } | undefined> | undefined;
  const pairThread = () => (thread ??= pinThread(cpu));
  if (mode === 'eager' && !(await pairThread())) return undefined;

  const done = new Set<number>();
  let running: Promise<void> | undefined;
  let again = false;
  let ended = false;
  const followed: Array<() => void> = [];

  const scan = async (): Promise<void> => {
    do {
      again = false;
      if (ended) return;
      const tasks = await source.sessionTasks().catch((e: unknown) => {
        log('sessions not listed: %s', (e as Error).message);
        return [];
      });
      const fresh = tasks.filter((t) => !done.has(t) && (mode === 'eager' || cpuTicks(t) >= BUSY_TICKS));
      if (fresh.length === 0 || !(await pairThread())) continue;
      for (const t of fresh) done.add(t);
      await Promise.all(fresh.map((t) => setAffinity(t, String(cpu))));
      log('sessions %s paired with CPU %d', fresh.join(','), cpu);
    } while (again);
  };
  const refresh = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = scan().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    cpu,
    refresh,
    follow(pool) {
      if (!pool || typeof pool.on !== 'function') return;
      const onConnect = () => void refresh();
      for (const event of ['connect', 'connection']) {
        pool.on(event, onConnect);
        followed.push(() => (pool.off ?? pool.removeListener)?.call(pool, event, onConnect));
      }
    },
    async end() {
      if (ended) return;
      ended = true;
      for (const stop of followed) stop();
      await running;
      const pinned = await thread;
      if (!handoff && pinned && pinned.before !== String(cpu)) await setAffinity(pinned.thread, pinned.before);
    },
  };
}
