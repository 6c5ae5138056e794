/**
 * What a runner's global setup hands to its workers, and what a worker derives from it without
 * any I/O: its database name and URL. Workers must be able to export the URL into the app's env
 * var synchronously, before the first test file imports the app, so nothing here is async and
 * nothing here loads a driver.
 */
import { FastTestDbError } from '../../errors.js';
import { workerDatabaseName } from '../../core/database.js';
import type { ConnectionOptions, Engine, ServerInfo } from '../../types.js';
import { detectWorker } from '../../options/workers.js';
import { expectRunner, RUNNER_WIRING, type RunnerName } from './current-runner.js';

/** Env var carrying the JSON handoff from global setup to workers (forks, threads, child processes). */
export const RUNNER_ENV = 'FAST_TEST_DB_RUNNER';

/** Key under which the vitest global setup `provide`s the handoff. */
export const PROVIDE_KEY = 'fastTestDb';

/**
 * - `worker` (default): one clone per worker, kept for every file that worker runs.
 * - `file`: a fresh clone for each test file (cheap on PostgreSQL: a file copy).
 * - `test`: one clone per worker, emptied before each test (reset()).
 */
export type Isolation = 'worker' | 'file' | 'test';

export const ISOLATIONS: readonly Isolation[] = ['worker', 'file', 'test'];

export interface Handoff {
  v: 1;
  run: string;
  engine: Engine;
  prefix: string;
  shard?: string;
  server: ServerInfo;
  template: string;
  /** The template's fingerprint (what its name is made from), for TestDatabase.template. */
  fingerprint: string;
  /** Tables with rows in the template; reset() keeps them. */
  seeded: string[];
  isolation: Isolation;
  /** Env vars that receive the worker's URL (DATABASE_URL by default). */
  envVars: string[];
  /** The URL of a database named NAME_SLOT; workers substitute their own name. */
  urlPattern: string;
  /** The runner's main process: the workers' databases belong to its run while it lives (src/users.ts). */
  main?: number;
  /** A directory private to this run, for the workers' "already cloned" notes. */
  dir: string;
  /**
   * CPU pairing (src/cpu-pairing.ts): the CPUs the runner's process could use, worker N's being the
   * Nth; absent when pairing is off for this run.
   */
  cpus?: number[];
  /**
   * Set while the server is still starting (ready.ts): the file the global setup writes the finished
   * handoff to. Until then `server` holds only how to reach it, and `template` and `seeded` are empty.
   */
  pending?: string;
  /** The pid of the process that writes `pending`. */
  owner?: number;
}

export const NAME_SLOT = '__FAST_TEST_DB_NAME__';

export function readHandoff(env: NodeJS.ProcessEnv = process.env): Handoff | undefined {
  const raw = env[RUNNER_ENV];
  if (!raw) return undefined;
  try {
    const h = JSON.parse(raw) as Handoff;
    if (h.v === 1) return h;
  } catch {
    // fall through to the error below
  }
  throw new FastTestDbError(
    'BAD_OPTION',
    `${RUNNER_ENV} does not hold a handoff this version of fast-test-db understands`,
    'use the same fast-test-db version in the global setup and the workers, and do not set this variable by hand',
  );
}

/** The handoff, or an error naming how `runner`'s global setup is wired (or the entry of the runner this really is). */
export function requireHandoff(runner: RunnerName): Handoff {
  const h = readHandoff();
  if (h) return h;
  expectRunner(runner, `fast-test-db/${runner}`);
  throw new FastTestDbError(
    'BAD_OPTION',
    `fast-test-db/${runner} found no handoff from its global setup (${RUNNER_ENV} is not set): the global setup did not run first`,
    `add the global setup too: ${RUNNER_WIRING[runner]}`,
  );
}

export interface WorkerTarget {
  name: string;
  url: string;
  worker: string;
  connection: ConnectionOptions;
}

/** This worker's database, computed from the handoff and the runner's worker id env var. */
export function workerTarget(h: Handoff, worker = detectWorker().id, suffix?: string): WorkerTarget {
  // Only the engine is needed for a name: no driver is loaded here.
  const name = workerDatabaseName({ engine: h.engine }, { engine: h.engine, prefix: h.prefix, run: h.run, shard: h.shard, worker }, suffix);
  const s = h.server;
  return {
    name,
    worker,
    url: h.urlPattern.replace(NAME_SLOT, encodeURIComponent(name)),
    connection: { host: s.host, port: s.port, user: s.user, password: s.password, database: name },
  };
}

/** Puts the URL where the app reads it. Runs before the app's modules are imported. */
export function exportUrl(h: Handoff, url: string, env: NodeJS.ProcessEnv = process.env): void {
  for (const v of h.envVars) env[v] = url;
}
