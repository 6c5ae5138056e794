/**
 * fast-test-db's Vitest integration: its global setup starts a tuned PostgreSQL (or joins the
 * server in FAST_TEST_DB_URL), builds a template from prisma/migrations once per change of the
 * migrations or the schema, and gives every worker a clone whose URL it puts in DATABASE_URL.
 * isolation 'test' empties the tables before each test.
 */
import { fileURLToPath } from 'node:url';
import { prismaTemplate } from 'fast-test-db/prisma';
import { withFastTestDb } from 'fast-test-db/vitest';
import { defineConfig } from 'vitest/config';

export default defineConfig(
  withFastTestDb(
    {
      root: fileURLToPath(new URL('.', import.meta.url)),
      test: {
        include: ['test/**/*.test.ts'],
        globalSetup: ['./test/global-setup.ts'],
        setupFiles: ['./test/setup.ts'],
        pool: 'forks',
        maxWorkers: 2,
        testTimeout: 60_000,
        hookTimeout: 120_000,
      },
    },
    {
      isolation: 'test',
      adapter: () => prismaTemplate({ schema: fileURLToPath(new URL('./prisma/schema.prisma', import.meta.url)) }),
    },
  ),
);
