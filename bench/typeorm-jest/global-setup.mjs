/**
 * For the fast-test-db step only: start the tuned server once for the whole Jest run and hand it to
 * the workers, as a runner integration does; the first worker to ask builds the template. Jest loads
 * this file natively; the library's TypeScript source comes in through tsx (users import dist/).
 */
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const env = JSON.parse(process.env.BENCH_TYPEORM_JEST ?? '{}');
  if (env.store !== 'ftdb') return;
  const { startServer, SERVER_ENV } = await tsImport('../../src/index.ts', import.meta.url);
  const server = await startServer({}, 'postgres');
  process.env[SERVER_ENV] = JSON.stringify([server]);
}
