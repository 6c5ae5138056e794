/**
 * Playwright's `globalSetup` (fast-test-db/playwright's default export, index.ts): starts or joins
 * the server and builds the template in the runner process; the function it returns is
 * Playwright's teardown.
 */
import { currentRun, startRun } from '../shared/global.js';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const run = currentRun() ?? (await startRun());
  return () => run.teardown();
}
