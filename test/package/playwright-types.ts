/**
 * Compiled by `tsc --noEmit -p .`, never run: fast-test-db/playwright's `fixtures` fit the types of
 * Playwright's `test.extend`, as a TypeScript user writes it.
 */
import { test as base } from '@playwright/test';
import { fixtures, type TestDatabase } from '../../src/runners/playwright/index.js';

// biome-ignore lint/suspicious/noExportsInTest: not a test file; a type check of the fixtures as a user exports them.
// biome-ignore lint/suspicious/noConfusingVoidType: Playwright's own type for a fixture with no value.
export const test = base.extend<{ fastTestDbIsolation: void }, { db: TestDatabase }>(fixtures);

test('db is the worker database', async ({ db }) => {
  db.url.toString();
});
