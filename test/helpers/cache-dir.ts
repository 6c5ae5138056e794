/**
 * Vitest global setup of this repository's own suite: the warm start is on by default, and a data
 * directory saved by an earlier run would hand later runs templates they expect to build. Each run
 * of the suite gets a cache directory of its own (vitest.config.ts), removed at its end.
 */
import { rmSync } from 'node:fs';

export default function setup(): () => void {
  return () => {
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
