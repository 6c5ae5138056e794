import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'playwright',
  workers: 2,
  fullyParallel: true,
  reporter: 'list',
  // The form the README shows: a module name, which Playwright resolves from the config's folder.
  globalSetup: 'fast-test-db/playwright',
});
