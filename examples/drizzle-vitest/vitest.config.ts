/**
 * fast-test-db's Vitest integration: its global setup starts a tuned PostgreSQL (or joins the
 * server in FAST_TEST_DB_URL), builds a template from drizzle/ once per change of the migrations,
 * and gives every worker a clone whose URL it puts in DATABASE_URL. isolation 'test' empties the
 * tables before each test.
 */
import { fileURLToPath } from 'node:url';
import { drizzleTemplate } from 'fast-test-db/drizzle';
import { withFastTestDb } from 'fast-test-db/vitest';
import { defineConfig } from 'vitest/config';
import * as schema from './src/schema.ts';

export default defineConfig(
  withFastTestDb(
    {
      root: fileURLToPath(new URL('.', import.meta.url)),
      test: {
        include: ['test/**/*.test.ts'],
        setupFiles: ['./test/setup.ts'],
        pool: 'forks',
        maxWorkers: 2,
        testTimeout: 60_000,
        hookTimeout: 120_000,
      },
    },
    {
      isolation: 'test',
      adapter: () => drizzleTemplate({ schema, migrationsFolder: fileURLToPath(new URL('./drizzle', import.meta.url)) }),
    },
  ),
);
