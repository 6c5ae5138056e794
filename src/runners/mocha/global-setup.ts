/**
 * Mocha's global fixtures (fast-test-db/mocha, index.ts): once, in Mocha's main process, start or
 * join the server and build the template; at the end, drop the run's databases.
 */
import { currentRun, startRun } from '../shared/global.js';
import { prepare } from './setup.js';

export async function mochaGlobalSetup(): Promise<void> {
  if (!currentRun()) await startRun();
  prepare();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await currentRun()?.teardown();
}
