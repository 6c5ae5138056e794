/**
 * For the fast-test-db step only: the library's own Jest global setup, as `withFastTestDb` wires it.
 * It hands the workers the server while it is still starting (they wait for it before their first
 * clone), so the server's start overlaps Jest's start of its workers; the adapter's template is
 * built by the first worker that asks, or comes with the warm copy of the data directory. Jest
 * loads this file natively, and the library from dist/, as users get it.
 */
export default async function globalSetup(globalConfig, projectConfig) {
  const env = JSON.parse(process.env.BENCH_TYPEORM_JEST ?? '{}');
  if (env.store !== 'ftdb') return;
  const { default: setup } = await import('../../dist/runners/jest-global-setup.js');
  await setup(globalConfig, projectConfig, { quiet: true });
}
