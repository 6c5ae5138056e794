/**
 * Vitest global setup of this repository's own suite: the warm start is on by default, and a data
 * directory saved by an earlier run would hand later runs templates they expect to build. Each run
 * of the suite gets a cache directory of its own (vitest.config.ts), removed at its end, and so is
 * every private data root its tests made and left empty (a -t filter skips the tests that use them).
 */
import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export default function setup(): () => void {
  return () => {
    removeUnusedRoots(process.env.TEST_SUITE_PRIVATE_ROOTS);
    const dir = process.env.FAST_TEST_DB_CACHE_DIR;
    if (!dir?.includes('ftdb-suite-cache-')) return;
    // A server stopped near the end may still be writing its warm copy here: retry while it lands.
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch (e) {
      console.warn(`left ${dir}: ${(e as Error).message}`);
    }
  };
}

/** Only an empty root goes: one a test used and did not clean up is left, to be seen. */
function removeUnusedRoots(list: string | undefined): void {
  if (!list?.includes('ftdb-suite-roots-')) return;
  for (const name of readdirSync(list)) {
    try {
      rmdirSync(join('/dev/shm', name));
    } catch {}
  }
  rmSync(list, { recursive: true, force: true });
}
