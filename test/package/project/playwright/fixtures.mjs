// What the tests import instead of '@playwright/test': `db` in every test, and the run's isolation
// applied before each test.
import { test as base } from '@playwright/test';
import { fixtures } from 'fast-test-db/playwright';

export { expect } from '@playwright/test';
export const test = base.extend(fixtures);
