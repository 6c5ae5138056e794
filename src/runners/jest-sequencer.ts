/**
 * Jest `testSequencer` (withFastTestDb sets it when the config names none): Jest's own order, failed
 * files first and then the longest, with the durations also kept in fast-test-db's cache directory.
 * Jest keeps them in its cacheDirectory, under /tmp by default, which a CI job starts without; it
 * then orders by file size, and one long file started last leaves the other workers idle at the
 * end of the run. The CI recipe (docs/ci.md) caches our directory for the warm copy, so durations
 * come with it. Where Jest's cache knows a file, Jest's figure wins.
 *
 * Jest's sort asks `time()` and `hasFailed()` for each file since 29.2; before that it read its cache
 * directly, so there it orders as usual and this only records.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FastTestDbError } from '../errors.js';
import { cacheRoot } from '../options.js';
import { jestBaseSequencer, type RunResults, type SequencedTest } from './jest-base-sequencer.js';
import { stashedOptions } from './global.js';

/** Per test file (absolute path, as Jest keys its own): the last run's wall time, and whether it failed. */
type FileTimes = Record<string, { ms: number; failed: boolean }>;

/**
 * Where the durations are kept: beside the warm copy, in the cacheDir given to withFastTestDb (this
 * is the process that evaluated the config) or FAST_TEST_DB_CACHE_DIR. Jest sorts before its global
 * setup reads fast-test-db.config.*, so a cacheDir set only there is not seen here.
 */
export function fileTimesPath(): string {
  return join(cacheRoot(stashedOptions()), 'jest-file-times.json');
}

function readTimes(file: string): FileTimes {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as FileTimes;
  } catch {
    return {};
  }
}

const Base = jestBaseSequencer();
if (!Base) {
  throw new FastTestDbError(
    'PACKAGE_BROKEN',
    `fast-test-db's Jest sequencer could not load Jest's default sequencer (@jest/test-sequencer) from ${process.argv[1]} or ${process.cwd()}`,
    'remove testSequencer from the Jest config (withFastTestDb sets it only where Jest is found), or run Jest from the project directory',
  );
}

export default class FastTestDbSequencer extends Base {
  readonly #file = fileTimesPath();
  readonly #earlier = readTimes(this.#file);

  override time(test: SequencedTest): number | undefined {
    return super.time?.(test) ?? this.#earlier[test.path]?.ms;
  }

  override hasFailed(test: SequencedTest): boolean {
    if (super.time?.(test) !== undefined) return super.hasFailed?.(test) ?? false;
    return this.#earlier[test.path]?.failed ?? false;
  }

  override cacheResults(tests: SequencedTest[], results: RunResults): void {
    super.cacheResults(tests, results);
    const times = readTimes(this.#file);
    for (const r of results.testResults) {
      if (r.skipped) continue;
      const ms = r.perfStats.runtime ?? r.perfStats.end - r.perfStats.start;
      times[r.testFilePath] = { ms: Math.round(ms), failed: r.numFailingTests > 0 || r.testExecError != null };
    }
    // Written whole and renamed into place: two Jest runs of one project may end together.
    try {
      mkdirSync(dirname(this.#file), { recursive: true });
      const tmp = `${this.#file}.${process.pid}`;
      writeFileSync(tmp, JSON.stringify(times));
      renameSync(tmp, this.#file);
    } catch {
      /* an unwritable cache costs the next run its order, not this run its result */
    }
  }
}
