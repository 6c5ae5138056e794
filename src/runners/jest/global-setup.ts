/**
 * Jest `globalSetup`: runs in Jest's main process before any worker starts (and again before each
 * watch-mode run, where it finds the server and the template already there).
 */
import type { FastTestDbConfig } from '../../types.js';
import { currentRun, startRun } from '../shared/global.js';

interface JestGlobalConfig {
  rootDir?: string;
  watch?: boolean;
  watchAll?: boolean;
}

export default async function globalSetup(
  globalConfig: JestGlobalConfig = {},
  projectConfig: { rootDir?: string } = {},
  options: FastTestDbConfig = {},
): Promise<void> {
  if (currentRun()) {
    // Watch mode: same run, same server, same template; only the workers' databases start over.
    await currentRun()!.resetRun();
    return;
  }
  await startRun(options, { cwd: projectConfig.rootDir ?? globalConfig.rootDir, early: true });
}
