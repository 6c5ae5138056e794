import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { benchEnv, openPoints, type PointStore } from '../store.js';

const count = benchEnv().rows;
let points: PointStore;

beforeAll(async () => {
  points = await openPoints();
});
afterAll(() => points.close());

describe('Point, 2 x 10_000', () => {
  it.each([1, 2])('inserts 10_000 points one at a time (%i)', async () => {
    for (let key = 0; key < count; key++) await points.add(key * 1_000);
  });
});
