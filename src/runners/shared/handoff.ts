/**
 * What a runner's global setup hands to its workers, and what a worker derives from it without
 * any I/O: its database name and URL. Workers must be able to export the URL into the app's env
 * var synchronously, before the first test file imports the app, so nothing here is async and
 * nothing here loads a driver.
 */
import { FastTestDbError } from '../../errors.js';
import { workerDatabaseName } from '../../core/names.js';
import type { Handoff, Isolation, WorkerTarget } from '../../types.js';
import type { Context } from '../../options/context.js';
import { RUNNER_ENV } from '../../options/handoff.js';
import { expectRunner, RUNNER_WIRING, type RunnerName } from './current-runner.js';

export type { Handoff, Isolation, WorkerTarget } from '../../types.js';

export { PROVIDE_KEY } from '../../options/handoff.js';

export const ISOLATIONS: readonly Isolation[] = ['worker', 'file', 'test'];

export const NAME_SLOT = '__FAST_TEST_DB_NAME__';

/** The handoff, or an error naming how `runner`'s global setup is wired (or the entry of the runner this really is). */
export function requireHandoff(ctx: Pick<Context, 'handoff' | 'env'>, runner: RunnerName): Handoff {
  const h = ctx.handoff;
  if (h) return h;
  expectRunner(runner, `fast-test-db/${runner}`, ctx.env);
  throw new FastTestDbError(
    'BAD_OPTION',
    `fast-test-db/${runner} found no handoff from its global setup (${RUNNER_ENV} is not set): the global setup did not run first`,
    `add the global setup too: ${RUNNER_WIRING[runner]}`,
  );
}

/** This worker's database, computed from the handoff and the worker's id (the context's `names.worker`). */
export function workerTarget(h: Handoff, worker: string, suffix?: string): WorkerTarget {
  // Only the engine is needed for a name: no driver is loaded here.
  const name = workerDatabaseName({ engine: h.engine }, { engine: h.engine, prefix: h.prefix, run: h.run, shard: h.shard, worker }, suffix);
  const s = h.server;
  // The app's own login (the `login` option) when the run has one, else the server's.
  const { user, password } = h.login ?? s;
  return {
    name,
    worker,
    url: h.urlPattern.replace(NAME_SLOT, encodeURIComponent(name)),
    connection: { host: s.host, port: s.port, user, password, database: name },
  };
}
