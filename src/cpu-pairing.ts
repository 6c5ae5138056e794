/**
 * CPU pairing: a test worker's thread and the server sessions of its database share one CPU.
 *
 * A test that awaits one query after another is a ping-pong between two processes. Waking a
 * process on another CPU, most of all an idle one of a virtual machine, costs more than the query:
 * on the 2-core machine of bench/, a prepared `SELECT 1` took 100 us across CPUs and 40 us with
 * both ends on one (MariaDB: 94 and 40 us). Each worker gets its own CPU, so that N workers on N
 * CPUs still run side by side.
 *
 * Only where it cannot surprise: Linux; a server we started on this machine (its processes are
 * ours to schedule; never one we do not own, never a container's); a numbered runner worker whose
 * number is at most the CPUs this process may use (more workers than CPUs would lose the
 * scheduler's balancing), and not Playwright's, whose workers drive browsers. The thread's own
 * affinity is given back when the handle closes: processes it starts meanwhile inherit the CPU.
 * `cpuPairing: false` or FAST_TEST_DB_CPU_PAIRING=0 turns it off.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { logger } from './log.js';
import type { TestDatabase, TestDatabaseOptions } from './types.js';
import { detectWorker } from './workers.js';
import { resolveOptions } from './options.js';

const log = logger('cpu');

/** Workers whose number says which CPU is theirs (1-based; Mocha's and node:test's may start at 0). */
const NUMBERED_WORKERS = new Set(['FAST_TEST_DB_WORKER', 'JEST_WORKER_ID', 'VITEST_POOL_ID', 'NODE_TEST_WORKER_ID', 'MOCHA_WORKER_ID']);

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
  /** Pins the sessions of the database not pinned yet; a call while one runs makes it run once more. */
  refresh(): Promise<void>;
  /** Follows a pool: each connection it opens is pinned too. */
  follow(pool: PoolEvents | undefined): void;
  /** Gives the thread back its affinity; the sessions end with their connections. */
  end(): Promise<void>;
}

/** The CPUs this thread may run on, before any pairing (a cgroup or taskset may have narrowed them). */
let allowedAtStart: number[] | undefined;

function allowedCpus(): number[] {
  if (allowedAtStart) return allowedAtStart;
  const status = readFileSync('/proc/thread-self/status', 'utf8');
  const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1] ?? '';
  allowedAtStart = parseCpuList(list);
  return allowedAtStart;
}

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

/** This worker's CPU, or why it gets none. */
export function pairingCpu(
  database: Pick<TestDatabase, 'server'>,
  options: TestDatabaseOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): { cpu: number } | { off: string } {
  if (!resolveOptions(options, env).cpuPairing) return { off: 'turned off' };
  if (process.platform !== 'linux') return { off: `not on ${process.platform}` };
  const { server } = database;
  if (!server.owned || server.provider !== 'embedded') return { off: 'not a server started here' };
  const worker = options.worker !== undefined ? { id: options.worker, source: 'FAST_TEST_DB_WORKER' } : detectWorker(env);
  if (!NUMBERED_WORKERS.has(worker.source) || !/^\d+$/.test(worker.id))
    return { off: `worker "${worker.id}" is not a numbered runner worker` };
  const cpus = allowedCpus();
  const slot = Math.max(0, Number(worker.id) - 1);
  if (slot >= cpus.length) return { off: `worker ${worker.id} of more workers than the ${cpus.length} CPUs` };
  return { cpu: cpus[slot]! };
}

/** The calling thread's id (in a worker_threads worker, not the process's). */
function threadId(): number {
  return Number(readlinkSync('/proc/thread-self').split('/').pop());
}

let tasksetMissing = false;

/** Sets the affinity of one task; false when it could not (no taskset, the task is gone). */
function setAffinity(task: number, cpus: string): Promise<boolean> {
  if (tasksetMissing) return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile('taskset', ['-pc', cpus, String(task)], (err) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        tasksetMissing = true;
        log('taskset not found: no CPU pairing');
      } else if (err) log('taskset %s %d: %s', cpus, task, err.message.split('\n')[0]);
      resolve(!err);
    });
  });
}

/**
 * Pairs this thread and the sessions `source` names with this worker's CPU, or returns undefined
 * (with the reason in the debug log) where pairing does not apply.
 */
export async function pairCpu(
  database: Pick<TestDatabase, 'server'> & SessionSource,
  options: TestDatabaseOptions = {},
): Promise<CpuPairing | undefined> {
  const decision = pairingCpu(database, options);
  if ('off' in decision) {
    log('no CPU pairing: %s', decision.off);
    return undefined;
  }
  const { cpu } = decision;
  const thread = threadId();
  if (!(await setAffinity(thread, String(cpu)))) return undefined;
  log('thread %d paired with CPU %d', thread, cpu);

  const pinned = new Set<number>();
  let running: Promise<void> | undefined;
  let again = false;
  let ended = false;
  const followed: Array<() => void> = [];

  const scan = async (): Promise<void> => {
    do {
      again = false;
      if (ended) return;
      const tasks = await database.sessionTasks().catch((e: unknown) => {
        log('sessions not listed: %s', (e as Error).message);
        return [];
      });
      const fresh = tasks.filter((t) => !pinned.has(t));
      for (const t of fresh) pinned.add(t);
      await Promise.all(fresh.map((t) => setAffinity(t, String(cpu))));
      if (fresh.length) log('sessions %s paired with CPU %d', fresh.join(','), cpu);
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
      await setAffinity(thread, allowedCpus().join(','));
    },
  };
}
