import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { benchEnv, openPoints, type PointStore } from '../store.js';

const count = benchEnv().rows;
let points: PointStore;

beforeAll(async () => {
  points = await openPoints();
});
afterAll(() => points.close());

describe('Point, 1 x 10_000', () => {
  it('inserts 10_000 points one at a time', async () => {
    for (let key = 0; key < count; key++) await points.add(key * 1_000);
  });
});
