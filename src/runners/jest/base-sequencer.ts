/**
 * What fast-test-db's Jest sequencer stands on, loadable without loading the sequencer itself (which
 * extends Jest's at import): Jest's default sequencer, and where ours keeps file durations.
 *
 * @jest/test-sequencer is a dependency of jest-config, not of the project, so a strict node_modules
 * (pnpm) reaches it only along jest -> @jest/core -> jest-config; we start from Jest's own bin (this
 * process's script), then from the working directory.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** What our sequencer needs of Jest's; structural, so our types do not depend on Jest's. */
export interface SequencedTest {
  path: string;
  duration?: number;
}

export interface RunResults {
  testResults: Array<{
    testFilePath: string;
    skipped?: boolean;
    numFailingTests: number;
    testExecError?: unknown;
    perfStats: { runtime?: number; start: number; end: number };
  }>;
}

/** Jest's sort asks time() and hasFailed() for each file (29.2 and later; the peer range starts at 29.7). */
export interface JestSequencer {
  time(test: SequencedTest): number | undefined;
  hasFailed(test: SequencedTest): boolean;
  cacheResults(tests: SequencedTest[], results: RunResults): void;
}

export type JestSequencerClass = new (options?: unknown) => JestSequencer;

/** Per test file (absolute path, as Jest keys its own): the last run's wall time, and whether it failed. */
export type FileTimes = Record<string, { ms: number; failed: boolean }>;

/** The durations file in a cache directory, beside the warm copy. */
export const fileTimesPath = (cacheDir: string): string => join(cacheDir, 'jest-file-times.json');

/** Undefined when no Jest can be found from here: withFastTestDb then leaves Jest's sequencer in place. */
export function jestBaseSequencer(): JestSequencerClass | undefined {
  const starts = [process.argv[1], join(process.cwd(), 'package.json')].filter((s): s is string => !!s);
  for (const start of starts) {
    // Down the chain as far as it goes, so that the sequencer is the one of this Jest's version even
    // where another Jest is hoisted beside it (jest-29 next to jest 30).
    let from = createRequire(start);
    for (const step of ['jest', '@jest/core', 'jest-config']) {
      try {
        from = createRequire(from.resolve(`${step}/package.json`));
      } catch {
        /* not a dependency of the last step (Jest's bin is inside jest already): the next one */
      }
    }
    try {
      const mod = from('@jest/test-sequencer') as { default?: JestSequencerClass };
      return mod.default ?? (mod as unknown as JestSequencerClass);
    } catch {
      /* no Jest from this start */
    }
  }
  return undefined;
}
