/**
 * fast-test-db/playwright: Playwright Test workers carry TEST_PARALLEL_INDEX.
 *
 *   // playwright.config.ts
 *   export default defineConfig({ globalSetup: 'fast-test-db/playwright' });   // a module name: works from ESM and CommonJS configs
 *   // a fixtures file, imported by the tests instead of '@playwright/test'
 *   export const test = base.extend(fixtures);   // `db` in every test, isolation applied
 *
 * The global setup starts the server and builds the template in the runner process; its returned
 * function is Playwright's teardown. Each worker clones its database on first use. A Playwright
 * worker is one process that runs many files and tests, and only a fixture sees where one test or
 * file ends: `fixtures` carries the run's isolation out ('test' empties the database before each
 * test, 'file' clones a fresh one when the worker moves to another file); `testDatabase()` alone
 * does not. A `webServer` that Playwright starts is one process for all workers: it cannot see
 * per-worker databases, so point it at one with `testDatabase()` from a single worker or use
 * isolation per test there.
 */
import { buildContext } from '../../options/context.js';
import { requireHandoff, workerTarget } from '../shared/handoff.js';
import { exportUrl } from '../shared/export-url.js';
import { playwrightFiles } from '../../state.js';
import type { TestDatabase } from '../../types.js';
import { cloneFresh, ensureCloned, workerDatabase } from '../shared/worker.js';

export { default } from './global-setup.js';
export type { TestDatabase } from '../../types.js';

/** A worker's context, read when the worker imports this module (after the global setup handed the run down). */
const ctx = buildContext({}, { check: false });

/** This worker's database, cloned on first call (fresh on every call with isolation 'file'); exports the URL too. */
export async function testDatabase(): Promise<TestDatabase> {
  const h = requireHandoff(ctx, 'playwright');
  const target = workerTarget(h, ctx.names.worker);
  exportUrl(h, target, process.env);
  if (h.isolation === 'file') await cloneFresh(h, target.name);
  else await ensureCloned(h, target.name);
  return workerDatabase(h, target);
}

type Use<T> = (value: T) => Promise<void>;

/**
 * Fixtures for `base.extend(fixtures)` (typed loosely, so that this module needs no
 * @playwright/test types): `db`, this worker's database (worker scope), and an automatic test
 * fixture that applies the run's isolation before every test. Playwright reads a fixture's
 * dependencies from its first parameter, which must stay an object pattern.
 */
export const fixtures: {
  db: [(args: object, use: Use<TestDatabase>) => Promise<void>, { scope: 'worker' }];
  fastTestDbIsolation: [(args: { db: TestDatabase }, use: Use<void>, testInfo: { file: string }) => Promise<void>, { auto: true }];
} = {
  db: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring, and this one has none.
    async ({}, use: Use<TestDatabase>) => {
      const db = await testDatabase();
      playwrightFiles.lastFile = undefined;
      await use(db);
      await db.close();
    },
    { scope: 'worker' },
  ],
  fastTestDbIsolation: [
    async ({ db }: { db: TestDatabase }, use: Use<void>, testInfo: { file: string }) => {
      const { isolation } = requireHandoff(ctx, 'playwright');
      // The worker's first file already has a fresh clone from the `db` fixture.
      if (isolation === 'file' && playwrightFiles.lastFile !== undefined && playwrightFiles.lastFile !== testInfo.file) await db.recreate();
      playwrightFiles.lastFile = testInfo.file;
      if (isolation === 'test') await db.reset();
      await use();
    },
    { auto: true },
  ],
};
