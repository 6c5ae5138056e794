const { testDatabase } = require('fast-test-db/jest');
const { probe } = require('../probe.cjs');

test('b', async () => {
  await probe('jest', 'b', process.env.JEST_WORKER_ID);
  expect((await testDatabase()).url).toBe(process.env.DATABASE_URL);
});
