// The same suite on fast-test-db, the built package as users install it: the library starts the
// server, migrates once into a template and hands each worker its own clone.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { defineConfig } from 'vitest/config';
import { fromDist } from '../lib/dist.js';
import { SCHEMA } from './app/store.js';

const { withFastTestDb } = await fromDist<typeof import('../../src/runners/vitest/index.js')>('vitest.js');

export default defineConfig(
  withFastTestDb(
    {
      root: fileURLToPath(new URL('.', import.meta.url)),
      test: {
        include: ['.generated/*.test.ts'],
        pool: 'forks',
        maxWorkers: Number(process.env.BENCH_SMALL_WORKERS ?? 2),
      },
    },
    {
      envVar: 'APP_DATABASE_URL',
      cacheKey: 'bench-small-suite',
      async migrate(url) {
        const c = new pg.Client(url);
        await c.connect();
        await c.query(SCHEMA);
        await c.end();
      },
    },
  ),
);
