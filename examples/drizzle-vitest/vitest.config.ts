import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const repo = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Inside the fast-test-db repository the example runs against the source. A copy of this
    // project drops the aliases and installs fast-test-db from npm.
    alias: [
      { find: /^fast-test-db\/drizzle$/, replacement: repo('adapters/drizzle/index.ts') },
      { find: /^fast-test-db$/, replacement: repo('src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['./test/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
