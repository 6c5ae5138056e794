import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// One cache directory per run of the suite (initdb's output, warm-start copies): a copy saved by an
// earlier run would hold templates that tests expect to build. Tests that study the cache set their own.
process.env.FAST_TEST_DB_CACHE_DIR = mkdtempSync(join(tmpdir(), 'ftdb-suite-cache-'));

// The private data roots tests make (test/core/helpers.ts), by name: the suite's end removes the empty ones.
process.env.TEST_SUITE_PRIVATE_ROOTS = mkdtempSync(join(tmpdir(), 'ftdb-suite-roots-'));

// A server a test run starts is kept for the next run by default (reuse, off on CI): the suite's
// spawned runs, CLIs and workers must not leave servers behind. Tests of that default set it themselves.
process.env.FAST_TEST_DB_REUSE ??= '0';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fixture projects hold their own tests, which the suite runs through real Jest/Vitest/node --test.
    exclude: ['test/fixtures/**', '**/node_modules/**'],
    globalSetup: ['test/helpers/cache-dir.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Suites start real servers; two files at a time fits this 2-core machine.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
