/** Jest `globalTeardown`: drops the run's databases; stops the server we started, except in watch mode. */
import { currentRun } from '../shared/global.js';

export default async function globalTeardown(globalConfig: { watch?: boolean; watchAll?: boolean } = {}): Promise<void> {
  const run = currentRun();
  if (!run) return;
  if (globalConfig.watch || globalConfig.watchAll) return; // the next watch run reuses all of it
  await run.teardown();
}
