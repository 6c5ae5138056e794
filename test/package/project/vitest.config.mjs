import { defineConfig } from 'vitest/config';
import { withFastTestDb } from 'fast-test-db/vitest';
import FastTestDbVitestReporter from 'fast-test-db/reporters/vitest';

const pool = process.env.POOL ?? 'forks';

export default defineConfig(
  withFastTestDb({
    test: {
      include: ['vitest/*.test.mjs'],
      pool,
      maxWorkers: Number(process.env.WORKERS ?? 2),
      fileParallelism: true,
      reporters: ['default', new FastTestDbVitestReporter({ outputFile: `vitest-${pool}-reporter.json` })],
      setupFiles: ['fast-test-db/reporters/vitest-setup'],
    },
  }),
);
