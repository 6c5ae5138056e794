import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fixture projects hold their own tests, which the suite runs through real Jest/Vitest/node --test.
    exclude: ['test/fixtures/**', '**/node_modules/**'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Suites start real servers; two files at a time fits this 2-core machine.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
