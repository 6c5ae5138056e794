/**
 * The one table from engine name to engine. Everything that differs between engines is asked of
 * the engine found here; its driver-side roles load only when used (Engine.load).
 */
import type { Flavor } from '../types.js';
import type { Engine, EngineName } from './engine.js';
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
