/**
 * What Drizzle's fastInsert record carries on MariaDB beyond the key, where there is no RETURNING:
 * the static defaults and nulls it knows without reading the row back, not the values the server
 * computes. (What every adapter's record carries is test/adapters/contract.ts.)
 */
import { expect, it } from 'vitest';
import { drizzleTestDb, fastInsert } from '../../../adapters/drizzle/index.js';
import * as myZoo from './zoo-mysql.js';

it('Drizzle on MariaDB: the static defaults and nulls it knows, not the server-computed ones', async () => {
  await using t = await drizzleTestDb({ schema: myZoo, engine: 'mysql', driver: 'mysql2', casing: 'snake_case', suffix: 'drizzlerecord' });
  const out = (await fastInsert(t.db, myZoo.people, { fullName: 'defaults' })) as Record<string, unknown>;
  expect(out).toMatchObject({ fullName: 'defaults', age: 18, score: 0, active: true, mood: 'ok', born: null });
  expect(out).not.toHaveProperty('createdAt');
});
