/**
 * What each test file calls: a DataSource on this Jest worker's database, a clone of the template
 * that fast-test-db's global setup built from the entities. The app's own options, unchanged.
 */
import { afterAll, beforeAll } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { testDatabase } from 'fast-test-db/jest';
import { typeormDataSource } from 'fast-test-db/typeorm';
import { dataSourceOptions } from '../src/data-source';

export function useTestDataSource(): () => DataSource {
  let ds: DataSource | undefined;
  beforeAll(async () => {
    ds = await typeormDataSource(dataSourceOptions, (await testDatabase()).connection);
  });
  afterAll(async () => {
    await ds?.destroy();
  });
  return () => ds!;
}

/** 10,000 rows per test in the full workload; POINTS_SCALE scales that (0.01 in the library's own test run). */
export const POINTS = Math.max(1, Math.round(10_000 * Number(process.env.POINTS_SCALE ?? 1)));
