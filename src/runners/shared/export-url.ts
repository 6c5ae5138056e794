/**
 * Puts the worker's database where the app reads it. Kept apart from handoff.ts, which names
 * databases with the engines' rules: a later test file exports a noted URL without loading them.
 */
import { appEnv } from '../../util/app-env.js';
import type { Handoff, WorkerTarget } from '../../types.js';

/**
 * The URL in every envVar name, and each name of the `env` mapping, in the process's live
 * environment (the runner's entry passes it). Runs before the app's modules are imported.
 */
export function exportUrl(
  h: Pick<Handoff, 'envVars' | 'appEnv'>,
  target: Pick<WorkerTarget, 'url' | 'connection'>,
  env: NodeJS.ProcessEnv,
): void {
  for (const v of h.envVars) env[v] = target.url;
  Object.assign(env, appEnv(target.connection, target.url, h.appEnv));
}
