import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testDatabase } from 'fast-test-db/node-test';
import { probe } from '../probe.cjs';

test('a', async () => {
  await probe('node-test', 'a', process.env.NODE_TEST_WORKER_ID);
  assert.equal((await testDatabase()).url, process.env.DATABASE_URL);
});
