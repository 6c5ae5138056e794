import { describe, expect, test } from '@jest/globals';
import { fastInsert } from 'fast-test-db/typeorm';
import { Point } from '../src/point.entity';
import { POINTS, useTestDataSource } from './db';

const ds = useTestDataSource();

describe.each([1, 2, 3])('run %i', (run) => {
  test(`inserts ${POINTS} points one at a time`, async () => {
    const repo = ds().getRepository(Point);
    for (let i = 0; i < POINTS; i++) await fastInsert(repo, { x: i, y: run });
    expect(await repo.countBy({ y: run })).toBe(POINTS);
  });
});
