/**
 * createTestDatabase() without a runner, on the suite's embedded PostgreSQL: a template from migrate
 * alone says once per process that it is built again every run and what to add; quiet says nothing,
 * and migrationFiles or a cacheKey need no note.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RUN_SCOPED_NOTE } from '../../src/core/fingerprint.js';
import { createTestDatabase } from '../../src/index.js';
import { sql } from './helpers.js';

describe('a plain createTestDatabase() with migrate alone', () => {
  let lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (lines.push(String(s)), true));
  afterEach(() => void (lines = []));
  const noted = () => lines.filter((l) => l.includes(RUN_SCOPED_NOTE)).length;
  const migrate = async (url: string) => void (await sql(url, 'CREATE TABLE note_t (id int)'));

  it('cacheKey or migrationFiles: no note', async () => {
    await (await createTestDatabase({ worker: 'nk', cacheKey: `note${Date.now()}`, migrate })).destroy();
    await (await createTestDatabase({ worker: 'nf', migrationFiles: 'package.json', migrate })).destroy();
    expect(noted()).toBe(0);
  });

  it('FAST_TEST_DB_QUIET: no note', async () => {
    process.env.FAST_TEST_DB_QUIET = '1';
    try {
      await (await createTestDatabase({ worker: 'nq', migrate })).destroy();
    } finally {
      delete process.env.FAST_TEST_DB_QUIET;
    }
    expect(noted()).toBe(0);
  });

  it('says it once per process, however many databases', async () => {
    await (await createTestDatabase({ worker: 'n1', migrate })).destroy();
    await (await createTestDatabase({ worker: 'n2', migrate })).destroy();
    spy.mockRestore();
    expect(lines.filter((l) => l === `${RUN_SCOPED_NOTE}\n`)).toHaveLength(1);
  });
});
