import { expect, test } from 'vitest';
import { testDatabase } from 'fast-test-db/vitest';
import { probe } from '../probe.cjs';

test('b', async () => {
  await probe('vitest-' + process.env.POOL, 'b', process.env.VITEST_POOL_ID);
  expect((await testDatabase()).url).toBe(process.env.DATABASE_URL);
});
