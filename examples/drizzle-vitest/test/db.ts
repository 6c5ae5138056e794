/** The test database of this test file, set by test/setup.ts. */
import type { DrizzleTestDb } from 'fast-test-db/drizzle';
import type { Db } from '../src/blog';

export const current: { testDb?: DrizzleTestDb<Db> } = {};

export function db(): Db {
  if (!current.testDb) throw new Error('test/setup.ts has not run: add it to setupFiles in vitest.config.ts');
  return current.testDb.db;
}
