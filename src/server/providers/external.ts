/**
 * A server we do not own, reached by its URL: asked what it is, never tuned, never stopped. Its
 * started server's stop() lets it go and leaves it running.
 */
import { describeServer } from '../../engines/connect.js';
import { engineFor } from '../../engines/index.js';
import { FastTestDbError } from '../../errors.js';
import type { ServerInfo } from '../../types.js';
import { type ProviderFactory, startedServer } from '../provider.js';
import { serverAt } from './url.js';

export const externalProvider: ProviderFactory = ({ context }) => ({
  kind: 'external',
  async start() {
    const { url, allowRemote } = context.resolved;
    if (!url) throw new FastTestDbError('BAD_OPTION', `server: 'external' needs a URL`, 'pass url, or set FAST_TEST_DB_URL');
    const probe = serverAt(url, allowRemote, context.env);
    const engine = engineFor(probe.engine);
    const report = await describeServer(engine, probe);
    const info: ServerInfo = {
      ...probe,
      flavor: report.flavor,
      version: report.version,
      major: Number(report.version.split('.')[0]),
      tuned: report.tuned,
    };
    return startedServer('external', info, engine.urls.url, async () => 'not-ours');
  },
});
