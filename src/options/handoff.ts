/**
 * The two env vars through which a runner's main process reaches the processes it starts (Jest's
 * and Mocha's workers, node:test's children, Vitest's forks): Jest's global setup has no channel
 * to its workers but their environment, and an adapter or createTestDatabase() in any runner's
 * worker reads them without loading that runner. They are read here, once per entry, into the
 * context (context.ts); they are written only by the runner's global setup (runners/shared/global.ts).
 */
import { FastTestDbError } from '../errors.js';
import type { Handoff, ServerInfo } from '../types.js';

/** Key under which the vitest global setup `provide`s the handoff (read with `inject`). */
export const PROVIDE_KEY = 'fastTestDb';

/** Env var carrying the JSON handoff from global setup to workers (forks, threads, child processes). */
export const RUNNER_ENV = 'FAST_TEST_DB_RUNNER';

/** Env var through which a runner's global setup hands its server to worker processes. */
export const SERVER_ENV = 'FAST_TEST_DB_SERVER';

/** The handoff of the run this process is a worker of, or undefined outside a runner's run. */
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

/** The servers a runner's global setup handed down; anything else in the variable is refused clearly. */
export function readHandedServers(env: NodeJS.ProcessEnv): ServerInfo[] | undefined {
  const raw = env[SERVER_ENV];
  if (!raw) return undefined;
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    list = undefined;
  }
  if (!Array.isArray(list) || !list.every((s) => s && typeof s === 'object' && typeof s.engine === 'string' && typeof s.port === 'number'))
    throw new FastTestDbError(
      'BAD_OPTION',
      `${SERVER_ENV} does not hold the server list a runner's global setup writes (it starts with ${JSON.stringify(raw.slice(0, 40))})`,
      `unset ${SERVER_ENV}: the runner integrations set it for their workers; to use a server of your own, set FAST_TEST_DB_URL instead`,
    );
  return list as ServerInfo[];
}
