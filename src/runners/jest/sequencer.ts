/**
 * Jest `testSequencer` (withFastTestDb sets it when the config names none): Jest's own order, failed
 * files first and then the longest, with the durations also kept in fast-test-db's cache directory.
 * Jest keeps them in its cacheDirectory, under /tmp by default, which a CI job starts without; it
 * then orders by file size, and one long file started last leaves the other workers idle at the
 * end of the run. The CI recipe (docs/ci.md) caches our directory for the warm copy, so durations
 * come with it. Where Jest's cache knows a file, Jest's figure wins.
 *
 * The durations also count where Jest's own would: when all it knows of are under a second, Jest runs
 * a suite of up to 20 files in band, as it does on a machine that kept its cache.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { FastTestDbError } from '../../errors.js';
import { buildContext } from '../../options/context.js';
import { cacheRoot } from '../../options/resolve.js';
import { readJson, writeJson } from '../../server/os/shared-files.js';
import { fileTimesPath, jestBaseSequencer, type FileTimes, type RunResults, type SequencedTest } from './base-sequencer.js';
import { stashedOptions } from '../shared/global.js';

const Base = jestBaseSequencer();
if (!Base) {
  throw new FastTestDbError(
    'PACKAGE_BROKEN',
    `fast-test-db's Jest sequencer could not load Jest's default sequencer (@jest/test-sequencer) from ${process.argv[1]} or ${process.cwd()}`,
    'remove testSequencer from the Jest config (withFastTestDb sets it only where Jest is found), or run Jest from the project directory',
  );
}

export default class FastTestDbSequencer extends Base {
  // The cacheDir given to withFastTestDb (this is the process that evaluated the config), or
  // FAST_TEST_DB_CACHE_DIR. Jest sorts before its global setup reads fast-test-db.config.*, so a
  // cacheDir set only there is not seen here.
  readonly #file = fileTimesPath(cacheRoot(buildContext(stashedOptions(), { check: false })));
  readonly #earlier = readJson<FileTimes>(this.#file) ?? {};

  override time(test: SequencedTest): number | undefined {
    return super.time(test) ?? this.#earlier[test.path]?.ms;
  }

  override hasFailed(test: SequencedTest): boolean {
    if (super.time(test) !== undefined) return super.hasFailed(test);
    return this.#earlier[test.path]?.failed ?? false;
  }

  override cacheResults(tests: SequencedTest[], results: RunResults): void {
    super.cacheResults(tests, results);
    // Read again rather than #earlier: another run of the project may have written since this one began.
    const times = readJson<FileTimes>(this.#file) ?? {};
    for (const r of results.testResults) {
      if (r.skipped) continue;
      const ms = r.perfStats.runtime ?? r.perfStats.end - r.perfStats.start;
      times[r.testFilePath] = { ms: Math.round(ms), failed: r.numFailingTests > 0 || r.testExecError != null };
    }
    // Whole and renamed into place: two Jest runs of one project may end together.
    try {
      mkdirSync(dirname(this.#file), { recursive: true });
      writeJson(this.#file, times);
    } catch {
      /* an unwritable cache costs the next run its order, not this run its result */
    }
  }
}
