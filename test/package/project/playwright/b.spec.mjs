import { expect, test } from './fixtures.mjs';
import { probe } from '../probe.cjs';

// Two tests in one worker: with isolation 'test', the second must find the first one's row gone.
for (const name of ['first', 'second'])
  test(name, async ({ db }) => {
    await probe('playwright', 'b', process.env.TEST_PARALLEL_INDEX);
    expect(db.url).toBe(process.env.DATABASE_URL);
  });
