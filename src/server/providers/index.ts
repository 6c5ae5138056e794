/**
 * Which provider gives the server a request wants: `server:` (FAST_TEST_DB_SERVER_MODE) names
 * the mode, and each mode picks its provider from the table below. 'auto' takes the URL when one
 * is given, else the server a runner handed down for this engine, else an embedded one.
 */
import { FastTestDbError } from '../../errors.js';
import { type Context, contextOf } from '../../options/context.js';
import type { EngineName, ServerInfo, ServerMode, TestDatabaseOptions } from '../../types.js';
import type { ProviderFactory, ProviderKind, ServerProvider, ServerRequest } from '../provider.js';
import { containerProvider } from './container.js';
import { embeddedProvider } from './embedded.js';
import { externalProvider } from './external.js';
import { handedOverProvider, handedServerFor } from './handed-over.js';

const PROVIDERS: Record<ProviderKind, ProviderFactory> = {
  external: externalProvider,
  'handed-over': handedOverProvider,
  embedded: embeddedProvider,
  container: containerProvider,
};

const MODES: Record<ServerMode, (request: ServerRequest) => ProviderKind> = {
  auto: (request) => (request.context.resolved.url ? 'external' : handedServerFor(request) ? 'handed-over' : 'embedded'),
  external: () => 'external',
  embedded: () => 'embedded',
  container: () => 'container',
};

export function serverProvider(request: ServerRequest): ServerProvider {
  const mode = request.context.resolved.server;
  const kind = Object.hasOwn(MODES, mode) ? MODES[mode](request) : undefined;
  if (!kind) throw new FastTestDbError('BAD_OPTION', `unknown server mode "${mode}"`, "use 'auto', 'embedded', 'external' or 'container'");
  return PROVIDERS[kind](request);
}

/**
 * Starts (or joins, or reaches) the server that `options` (or an entry's context) describe for
 * `engine`. `first`, when given, must succeed before anything starts (the driver's roles, whose
 * PEER_MISSING comes before a server does); the provider's code loads while it runs.
 */
export async function resolveServer(
  options: TestDatabaseOptions | Context,
  engine: EngineName,
  first?: Promise<unknown>,
): Promise<ServerInfo> {
  // Handled here too: when the provider cannot be made, that is the error, and `first` must not be left unhandled.
  first?.catch(() => undefined);
  const provider = serverProvider({ engine, context: contextOf(options) });
  await Promise.all([first, provider.prepare?.()]);
  return (await provider.start()).info;
}
