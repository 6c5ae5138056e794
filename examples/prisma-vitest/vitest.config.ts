import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Inside the fast-test-db repository only: use the adapter's source. In your project,
    // remove this alias; 'fast-test-db/prisma' resolves from node_modules.
    alias: { 'fast-test-db/prisma': fileURLToPath(new URL('../../adapters/prisma/index.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
