/**
 * Jest `globalSetup`: runs in Jest's main process before any worker starts (and again before each
 * watch-mode run, where it finds the server and the template already there).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastTestDbConfig } from '../../types.js';
import { noteUntested } from '../../util/tested.js';
import { currentRun, startRun } from '../shared/global.js';

/** The Jest the project resolves (the one running this), or 'unknown'. */
function jestVersion(dir: string): string {
  try {
    return (createRequire(join(dir, 'noop.js'))('jest/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

interface JestGlobalConfig {
  rootDir?: string;
  watch?: boolean;
  watchAll?: boolean;
  maxWorkers?: number;
  runInBand?: boolean;
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
  const cwd = projectConfig.rootDir ?? globalConfig.rootDir;
  noteUntested('jest', jestVersion(cwd ?? process.cwd()));
  const workers = globalConfig.runInBand ? 1 : globalConfig.maxWorkers;
  await startRun(options, { cwd, early: 'always', workers });
}
