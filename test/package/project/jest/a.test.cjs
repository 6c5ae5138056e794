const { testDatabase } = require('fast-test-db/jest');
const { probe } = require('../probe.cjs');

test('a', async () => {
  await probe('jest', 'a', process.env.JEST_WORKER_ID);
  expect((await testDatabase()).url).toBe(process.env.DATABASE_URL);
});
