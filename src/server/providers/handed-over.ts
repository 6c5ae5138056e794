/**
 * A server a parent process already started for this run (a runner's global setup, the CLI's
 * `start`) and handed down to its workers in FAST_TEST_DB_SERVER. The parent stops it: this
 * process's stop() leaves it running.
 */
import { engineFor } from '../../engines/index.js';
import { FastTestDbError } from '../../errors.js';
import { SERVER_ENV } from '../../options/handoff.js';
import type { ServerInfo } from '../../types.js';
import { type ProviderFactory, type ServerRequest, startedServer } from '../provider.js';

/** The server of the request's engine that was handed down to this process, if one was. */
export function handedServerFor({ engine, context }: ServerRequest): ServerInfo | undefined {
  return context.handedServers?.find((s) => s.engine === engine);
}

export const handedOverProvider: ProviderFactory = (request) => ({
  kind: 'handed-over',
  async start() {
    const info = handedServerFor(request);
    if (!info)
      throw new FastTestDbError(
        'BAD_OPTION',
        `no ${request.engine} server was handed down to this process (${SERVER_ENV})`,
        `run it under the runner integration that starts the server, or leave ${SERVER_ENV} unset`,
      );
    return startedServer('handed-over', info, engineFor(info.engine).urls.url, async () => 'not-ours');
  },
});
