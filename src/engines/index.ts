/**
 * The one table from engine name to engine. Everything that differs between engines is asked of
 * the engine found here; its driver-side roles load only when used (Engine.load).
 */
import type { Flavor } from '../types.js';
import type { Dialect } from './dialect.js';
import type { Engine, EngineName, LoadOptions, ServerRoles } from './engine.js';
import { mysql } from './mysql/index.js';
import { postgres } from './postgres/index.js';

export const ENGINES: Readonly<Record<EngineName, Engine>> = { postgres, mysql };

export const ENGINE_NAMES = Object.keys(ENGINES) as EngineName[];

export function engineFor(name: EngineName): Engine {
  return ENGINES[name];
}

/** The engine `--engine`, a config file or an env var names (any alias), or undefined. */
export function engineNamed(name: string): Engine | undefined {
  return ENGINE_NAMES.map((n) => ENGINES[n]).find((e) => e.aliases.includes(name));
}

/** The engine of a URL, from its scheme. */
export function engineOfScheme(scheme: string): Engine | undefined {
  return ENGINE_NAMES.map((n) => ENGINES[n]).find((e) => e.urls.schemes.includes(scheme.toLowerCase()));
}

/** The engine a flavor of server belongs to. */
export function engineOfFlavor(flavor: Flavor): Engine {
  return ENGINE_NAMES.map((n) => ENGINES[n]).find((e) => e.flavors.includes(flavor))!;
}

/** The flavor a URL scheme (without its colon) names, if it is one of ours. */
export function flavorOfScheme(scheme: string): Flavor | undefined {
  return engineOfScheme(scheme)?.urls.flavorOfScheme(scheme.toLowerCase());
}

/** Every URL scheme an engine accepts, for messages ("a postgres://, postgresql://, … URL"). */
export const URL_SCHEMES = ENGINE_NAMES.flatMap((n) => ENGINES[n].urls.schemes);

/** How messages name a server of `flavor` ("MariaDB"). */
export function flavorLabel(flavor: Flavor): string {
  const engine = engineOfFlavor(flavor);
  return engine.flavorLabels[flavor] ?? engine.label;
}

/**
 * The flat view of the server roles (dialect.ts), for callers not yet taking the roles they use.
 * The driver is loaded with it, so that a missing one is PEER_MISSING before any server starts.
 */
export async function dialectFor(name: EngineName, options: LoadOptions = {}): Promise<Dialect> {
  const engine = engineFor(name);
  return flatten(engine, await engine.load(options));
}

// Per set of roles (so not in src/state.ts): one flat view each, so that callers comparing dialects see one.
const flat = new WeakMap<ServerRoles, Dialect>();

function flatten(engine: Engine, roles: ServerRoles): Dialect {
  let dialect = flat.get(roles);
  if (!dialect) {
    const { swap } = roles;
    dialect = {
      ...roles,
      engine: engine.name,
      url: (server, database) => engine.urls.url(server, database),
      ...roles.connector,
      ...roles.locks,
      ...roles.templates,
      ...roles.markers,
      ...roles.resetter,
      describe: roles.inspector.describe,
      sessions: roles.inspector.sessions,
      sessionTasks: roles.inspector.sessionTasks,
      ...(roles.templates.clonesNeedNoSessions ? { openSessions: roles.inspector.openSessions } : {}),
      ...roles.logins,
      ...roles.tuner,
      ...(swap ? { renameDatabases: swap.renameDatabases, endConnections: swap.endConnections } : {}),
    };
    flat.set(roles, dialect);
  }
  return dialect;
}
