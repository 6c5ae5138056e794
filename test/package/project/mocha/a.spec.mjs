import assert from 'node:assert/strict';
import { testDatabase } from 'fast-test-db/mocha';
import { probe } from '../probe.cjs';

it('a', async () => {
  await probe('mocha', 'a', process.env.MOCHA_WORKER_ID);
  assert.equal((await testDatabase()).url, process.env.DATABASE_URL);
});
