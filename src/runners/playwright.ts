/**
 * fast-test-db/playwright: Playwright Test workers carry TEST_PARALLEL_INDEX.
 *
 *   // playwright.config.ts
 *   export default defineConfig({ globalSetup: require.resolve('fast-test-db/playwright') });
 *   // a worker-scoped fixture
 *   db: [async ({}, use) => use(await testDatabase()), { scope: 'worker' }],
 *
 * The global setup starts the server and builds the template in the runner process; its returned
 * function is Playwright's teardown. Each worker clones its database on first use. A `webServer`
 * that Playwright starts is one process for all workers: it cannot see per-worker databases, so
 * point it at one with `testDatabase()` from a single worker or use isolation per test there.
 */
import { currentRun, startRun } from './global.js';
import { exportUrl, requireHandoff, workerTarget } from './handoff.js';
import { cloneFresh, ensureCloned, workerDatabase, type WorkerDatabase } from './worker.js';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const run = currentRun() ?? (await startRun());
  return () => run.teardown();
}

/** This worker's database, cloned on first call (fresh on every call with isolation 'file'); exports the URL too. */
export async function testDatabase(): Promise<WorkerDatabase> {
  const h = requireHandoff('playwright');
  const target = workerTarget(h);
  exportUrl(h, target.url);
  if (h.isolation === 'file') await cloneFresh(h, target.name);
  else await ensureCloned(h, target.name);
  return workerDatabase(h, target);
}
