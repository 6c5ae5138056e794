import { expect, test } from '@jest/globals';
import { fastInsert } from 'fast-test-db/typeorm';
import { Point } from '../src/point.entity';
import { POINTS, useTestDataSource } from './db';

const ds = useTestDataSource();

test(`inserts ${POINTS} points one at a time`, async () => {
  const repo = ds().getRepository(Point);
  for (let i = 0; i < POINTS; i++) await fastInsert(repo, { x: i, y: -i });
  expect(await repo.count()).toBe(POINTS);
});
