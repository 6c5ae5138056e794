/**
 * The one contract every source of a server meets: a provider is told what is wanted and does
 * nothing until start(); start() gives a started server, an object that knows where the server is
 * (info, url) and how to let it go (stop, or `await using`). As with testcontainers' builder and
 * started container, the two are separate: a provider can be built, checked and thrown away
 * without starting anything, and only a started server can be stopped.
 *
 * Four providers (providers/): external (a URL we do not own), handed over (a server a parent
 * process started for this run), embedded (a server of ours, shared through the registry) and
 * container. What stop() does differs, and it says what it did: only what we started is stopped.
 */
import type { Context } from '../options/context.js';
import type { EngineName, ServerInfo } from '../types.js';

/**
 * The part of an entry's context (src/options/context.ts) that providers read: resolved once at
 * the entry and passed down, so that no provider reads the environment or resolves options itself.
 */
export type ServerContext = Pick<Context, 'options' | 'resolved' | 'env' | 'credentials' | 'handedServers' | 'cwd'>;

/** What was asked of a provider: the engine, and the context of the entry that wants a server. */
export interface ServerRequest {
  engine: EngineName;
  context: ServerContext;
}

/** Which of the four providers a server came from; `handed-over` servers were started by a parent. */
export type ProviderKind = 'external' | 'handed-over' | 'embedded' | 'container';

/** How a provider is built for a request: the table in providers/index.ts holds one per kind. */
export type ProviderFactory = (request: ServerRequest) => ServerProvider;

export interface ServerProvider {
  readonly kind: ProviderKind;
  /**
   * Loads the code start() runs, and starts nothing: a caller that has other modules to load first
   * (the driver) loads both at once instead of one after the other.
   */
  prepare?(): Promise<void>;
  /** Starts the server, or joins or reaches one that runs; rejects with a FastTestDbError. */
  start(): Promise<StartedServer>;
}

/**
 * What stop() did:
 * - `stopped`: the server is gone (a container removed, an embedded server no other process used);
 * - `shared`: other processes still use it: it stops when the last of them is done;
 * - `not-ours`: we never owned it (external, handed over): left as it was;
 * - `not-running`: it had already stopped.
 */
export type StopOutcome = 'stopped' | 'shared' | 'not-ours' | 'not-running';

export interface StartedServer extends AsyncDisposable {
  readonly kind: ProviderKind;
  /** Where the server is and how to reach it as admin: plain data, which may travel to other processes. */
  readonly info: ServerInfo;
  /** The URL of `database` on this server (default: the admin database), with the admin's credentials. */
  url(database?: string): string;
  /** Lets the server go; safe to call more than once (later calls say what the first did). */
  stop(): Promise<StopOutcome>;
  /** The same as stop(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A started server from its info and the provider's way of letting it go: every provider builds
 * its StartedServer here, so that stop() runs once whoever calls it, and url() is the engine's.
 */
export function startedServer(
  kind: ProviderKind,
  info: ServerInfo,
  engineUrl: (server: ServerInfo, database: string) => string,
  release: () => Promise<StopOutcome>,
): StartedServer {
  let stopping: Promise<StopOutcome> | undefined;
  const stop = () => {
    stopping ??= release();
    return stopping;
  };
  return {
    kind,
    info,
    url: (database = info.adminDatabase) => engineUrl(info, database),
    stop,
    [Symbol.asyncDispose]: async () => void (await stop()),
  };
}
