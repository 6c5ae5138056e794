import { expect, test } from '@jest/globals';
import { fastInsert } from 'fast-test-db/typeorm';
import { Point } from '../src/point.entity';
import { POINTS, useTestDataSource } from './db';

const ds = useTestDataSource();

test(`inserts ${POINTS} points with Promise.all`, async () => {
  const repo = ds().getRepository(Point);
  const results = await Promise.all(Array.from({ length: POINTS }, (_, i) => fastInsert(repo, { x: i, y: i })));
  const ids = new Set(results.map((r) => r.id));
  expect(ids.size).toBe(POINTS);
  expect(await repo.count()).toBe(POINTS);
});
