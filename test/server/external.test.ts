/**
 * The external-server path: a plain default PostgreSQL that the test starts itself (durable, on
 * disk) is handed to the library by URL. We may create and tune only our own databases there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../src/index.js';
import { startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';
import { sql } from '../core/helpers.js';

describe('a server we do not own', () => {
  let plain: PlainPostgres;
  beforeAll(async () => {
    plain = await startPlainPostgres();
  });
  afterAll(() => plain?.stop());

  it('is used by URL, never reconfigured, and gets only per-database settings on our databases', async () => {
    const before = await sql(
      plain.url,
      `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name`,
    );
    const db = await createTestDatabase({
      url: plain.url,
      worker: 'ext',
      cacheKey: 'ext-1',
      migrate: (url) => sql(url, `CREATE TABLE item (id serial PRIMARY KEY, parent_id int REFERENCES item(id))`).then(() => undefined),
    });
    try {
      expect(db.server).toMatchObject({ owned: false, provider: 'external', tuned: false });
      const report = await db.describe();
      expect(report.tuned).toBe(false);
      expect(report.untuned.fsync).toEqual({ expected: 'off', actual: 'on' });
      // Server-wide settings are exactly as before.
      expect(
        await sql(
          plain.url,
          `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name`,
        ),
      ).toEqual(before);
      // Our database has the reversible per-database setting...
      const [{ synchronous_commit }] = await sql(db.url, `SHOW synchronous_commit`);
      expect(synchronous_commit).toBe('off');
      // ...the admin database does not.
      const [{ synchronous_commit: adminSetting }] = await sql(plain.url, `SHOW synchronous_commit`);
      expect(adminSetting).toBe('on');
      // UNLOGGED is on by default where the server is durable.
      const [{ p }] = await sql(db.url, `SELECT relpersistence AS p FROM pg_class WHERE relname = 'item'`);
      expect(p).toBe('u');
    } finally {
      await db.destroy();
    }
    const left = await sql(plain.url, `SELECT datname FROM pg_database WHERE datname = 'ftdb_wext'`);
    expect(left).toEqual([]);
  });

  it('refuses an unreachable URL with one clear error', async () => {
    const closed = plain.url.replace(`:${plain.port}/`, ':1/');
    await expect(createTestDatabase({ url: closed })).rejects.toMatchObject({ code: 'UNREACHABLE' });
  });

  it('says which right is missing when the user may not create databases', async () => {
    await sql(plain.url, `DROP ROLE IF EXISTS limited; CREATE ROLE limited LOGIN`);
    const attempt = createTestDatabase({ url: plain.url.replace('postgres@', 'limited@'), worker: 'limited', cacheKey: 'limited' });
    await expect(attempt).rejects.toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringContaining('CREATEDB') });
  });
});
