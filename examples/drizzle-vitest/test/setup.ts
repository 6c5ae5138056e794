/**
 * Gives every test file a database of its own worker, cloned from a template that holds the
 * drizzle-kit migrations. The migrations run once per change of the drizzle/ folder, not per
 * file or per run; each test starts from empty tables.
 */
import { drizzleTestDb } from 'fast-test-db/drizzle';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import * as schema from '../src/schema';
import { current } from './db';

beforeAll(async () => {
  current.testDb = await drizzleTestDb({
    schema,
    migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  });
});

beforeEach(async () => {
  await current.testDb!.database.reset();
});

afterAll(async () => {
  await current.testDb?.close();
});
