/**
 * For the fast-test-db step only: the library's own Jest global setup, as `withFastTestDb` wires it.
 * It hands the workers the server while it is still starting (they wait for it before their first
 * clone), so the server's start overlaps Jest's start of its workers; the adapter's template is
 * built by the first worker that asks, or comes with the warm copy of the data directory. Jest
 * loads this file natively; the library's TypeScript source comes in through tsx (users import dist/).
 */
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup(globalConfig, projectConfig) {
  const env = JSON.parse(process.env.BENCH_TYPEORM_JEST ?? '{}');
  if (env.store !== 'ftdb') return;
  const { default: setup } = await tsImport('../../src/runners/jest-global-setup.ts', import.meta.url);
  await setup(globalConfig, projectConfig, { quiet: true });
}
