// The small suite as a plain project runs it: a server already up, a database per worker.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['.generated/*.test.ts'],
    pool: 'forks',
    maxWorkers: Number(process.env.BENCH_SMALL_WORKERS ?? 2),
    globalSetup: ['./plain-global-setup.ts'],
    setupFiles: ['./plain-setup.ts'],
  },
});
