import { test as base, expect } from '@playwright/test';
import { testDatabase } from 'fast-test-db/playwright';
import { probe } from '../probe.cjs';

// The README's worker fixture: this worker's database, its URL exported before the test runs.
const test = base.extend({ db: [async ({}, use) => use(await testDatabase()), { scope: 'worker', auto: true }] });

test('b', async ({ db }) => {
  await probe('playwright', 'b', process.env.TEST_PARALLEL_INDEX);
  expect(db.url).toBe(process.env.DATABASE_URL);
});
