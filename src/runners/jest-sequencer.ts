/**
 * Jest `testSequencer` (withFastTestDb sets it when the config names none): Jest's own order, failed
 * files first and then the longest, with the durations also kept in fast-test-db's cache directory.
 * Jest keeps them in its cacheDirectory, under /tmp by default, which a CI job starts without; it
 * then orders by file size, and one long file started last leaves the other workers idle at the
 * end of the run. The CI recipe (docs/ci.md) caches our directory for the warm copy, so durations
 * come with it. Where Jest's cache knows a file, Jest's figure wins.
 *
 * Jest 30 asks `time()` and `hasFailed()` for each file; Jest 29's sequencer has neither, so there it
 * orders as usual and this only records.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { FastTestDbError } from '../errors.js';
import { cacheRoot } from '../options.js';
import { stashedOptions } from './global.js';

/** What Jest passes for each test file; structural, so our types do not depend on Jest's. */
export interface SequencedTest {
  path: string;
  duration?: number;
}

interface RunResults {
  testResults: Array<{
    testFilePath: string;
    skipped?: boolean;
    numFailingTests: number;
    testExecError?: unknown;
    perfStats: { runtime?: number; start: number; end: number };
  }>;
}

interface JestSequencer {
  time?(test: SequencedTest): number | undefined;
  hasFailed?(test: SequencedTest): boolean;
  cacheResults(tests: SequencedTest[], results: RunResults): void;
}

type JestSequencerClass = new (options?: unknown) => JestSequencer;

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

/**
 * Jest's default sequencer, from the project's Jest: @jest/test-sequencer is a dependency of
 * jest-config, not of the project, so a strict node_modules (pnpm) reaches it only through
 * jest -> @jest/core -> jest-config.
 */
function jestDefaultSequencer(): JestSequencerClass {
  let from = createRequire(join(process.cwd(), 'package.json'));
  for (const next of ['jest', '@jest/core', 'jest-config', undefined]) {
    try {
      const mod = from('@jest/test-sequencer') as { default?: JestSequencerClass };
      return mod.default ?? (mod as unknown as JestSequencerClass);
    } catch {
      if (!next) break;
      try {
        from = createRequire(from.resolve(`${next}/package.json`));
      } catch {
        break;
      }
    }
  }
  throw new FastTestDbError(
    'PACKAGE_BROKEN',
    `fast-test-db/jest-sequencer could not load Jest's default sequencer (@jest/test-sequencer) from ${process.cwd()}`,
    'run Jest from the project directory, or set testSequencer in the Jest config to your own',
  );
}

const Base = jestDefaultSequencer();

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
