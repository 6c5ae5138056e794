/**
 * The app's own env names filled from one database's connection: the `env` option maps each name
 * the app reads (DB_HOST, DB_PORT, …) to a part of it, so that an app that never reads one URL gets
 * the worker's database (or, for a migrate command, the template's) with no setup file of its own.
 * Knows no engine and no option: the runners and the migrate command both call it.
 */
import type { AppEnvRole, ConnectionOptions } from '../types.js';

export type { AppEnvRole } from '../types.js';

export const APP_ENV_ROLES: readonly AppEnvRole[] = ['url', 'host', 'port', 'user', 'password', 'database'];

/** `mapping`'s names with their values: the URL for 'url', else that part of `connection` ('' where it has none). */
export function appEnv(
  connection: Partial<ConnectionOptions>,
  url: string,
  mapping: Readonly<Record<string, AppEnvRole>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, role] of Object.entries(mapping ?? {})) out[name] = role === 'url' ? url : String(connection[role] ?? '');
  return out;
}
