/**
 * A server of ours, started from the engine's binaries on this machine and shared by every process
 * of the project through the registry: the first one starts it (its keeper owns the processes),
 * the others join. Its started server's stop() gives up this process's lease, and stops the server
 * when no other process holds one.
 */
import type { EmbeddedSettings } from '../../engines/engine.js';
import { engineFor } from '../../engines/index.js';
import { cacheRoot } from '../../options/resolve.js';
import type { EngineName } from '../../types.js';
import { type ProviderFactory, type ServerContext, startedServer } from '../provider.js';
import { acquireOwnedServer, type OwnedServerRequest, releaseOwnedServer } from '../registry.js';

/**
 * The embedded server this project's processes share for `engine` and `options`: tests, the
 * runners and the CLI's `start` all build their request here, so that they meet on one server.
 * `port`: the CLI's `start --port`, instead of a free one.
 */
export async function embeddedRequest(
  engine: EngineName,
  context: ServerContext,
  port?: number,
): Promise<{ request: OwnedServerRequest; label: string }> {
  const of = engineFor(engine);
  const server = (await of.provisioning.embedded()).embeddedServer(embeddedSettings(context), of);
  return {
    // A getter: the label costs the engine an exec (the server binary's `--version`), which a join does without.
    get label() {
      return server.label;
    },
    request: {
      engine,
      identity: server.identity,
      context,
      plan: (ctx) => server.plan(port ? { ...ctx, port } : ctx),
    },
  };
}

/** What an engine's embedded provisioning reads of the entry's context (engines/engine.ts says why it is by shape). */
export function embeddedSettings(context: ServerContext): EmbeddedSettings {
  return { options: context.options, resolved: context.resolved, env: context.env, cacheRoot: cacheRoot(context) };
}

export const embeddedProvider: ProviderFactory = ({ engine, context }) => ({
  kind: 'embedded',
  prepare: async () => void (await engineFor(engine).provisioning.embedded()),
  async start() {
    const { request } = await embeddedRequest(engine, context);
    const info = await acquireOwnedServer(request);
    return startedServer('embedded', info, engineFor(engine).urls.url, async () =>
      info.stateDir ? releaseOwnedServer(info.stateDir) : 'not-running',
    );
  },
});
