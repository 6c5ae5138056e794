import { createRequire } from 'node:module';
import { defineConfig } from '@playwright/test';

const require = createRequire(import.meta.url);

export default defineConfig({
  testDir: 'playwright',
  workers: 2,
  fullyParallel: true,
  reporter: 'list',
  globalSetup: require.resolve('fast-test-db/playwright'),
});
