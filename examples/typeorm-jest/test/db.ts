/**
 * What each test file calls: a fresh clone of the template for this Jest worker, opened before the
 * file's tests and dropped after them.
 */
import type { DataSource } from 'typeorm';
import { typeormTestDb, type TypeormTestDb } from 'fast-test-db/typeorm';
import { dataSourceOptions } from '../src/data-source';

export function useTestDataSource(): () => DataSource {
  let t: TypeormTestDb | undefined;
  beforeAll(async () => {
    t = await typeormTestDb(dataSourceOptions, { worker: process.env.JEST_WORKER_ID });
  });
  afterAll(async () => {
    await t?.dataSource.destroy();
    await t?.db.destroy();
  });
  return () => t!.dataSource;
}

/** Seed 000 inserted 10,000 rows per test; POINTS_SCALE scales that (0.01 in the library's own test run). */
export const POINTS = Math.max(1, Math.round(10_000 * Number(process.env.POINTS_SCALE ?? 1)));
