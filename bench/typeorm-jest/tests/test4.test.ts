import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { benchEnv, openPoints, type PointStore } from '../store.js';

const count = benchEnv().rows;
let points: PointStore;

beforeAll(async () => {
  points = await openPoints();
});
afterAll(() => points.close());

describe('Point, 10_000 at once', () => {
  it('inserts 10_000 points with Promise.all', async () => {
    await points.addAll(Array.from({ length: count }, (_, key) => key * 1_000));
    expect(await points.count()).toBe(count);
  });
});
