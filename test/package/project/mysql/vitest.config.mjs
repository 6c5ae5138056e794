// TIMING=0: the same suite without the reporter and its setup file.
import { defineConfig } from 'vitest/config';
import { withFastTestDb } from 'fast-test-db/vitest';
import FastTestDbVitestReporter from 'fast-test-db/reporters/vitest';

const timing = process.env.TIMING !== '0';
export default defineConfig(
  withFastTestDb({
    test: {
      include: ['vitest/*.test.mjs'],
      ...(timing
        ? {
            reporters: ['default', new FastTestDbVitestReporter({ outputFile: 'vitest-reporter.json' })],
            setupFiles: ['fast-test-db/reporters/vitest-setup'],
          }
        : {}),
    },
  }),
);
