/**
 * Same answers as production (issue 12 section 4): queries whose answers depend on the locale,
 * collation, case mapping, character classes, number and date formatting and the time zone, run on
 * our tuned embedded server and on a default-configured server of the same binaries, initialised
 * as the official image does it: plain `initdb` with `LANG=en_US.utf8` in a UTC container. Where
 * this machine has no en_US locale the comparison server gets C.UTF-8, what a distribution package
 * gives on such a machine (this machine's own PostgreSQL 15 service shows C.UTF-8 too).
 * Tuning changes durability, never answers.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../src/index.js';
import { availableLocales } from '../../../src/engines/postgres/embedded.js';
import { startPlainPostgres, type PlainPostgres } from '../../helpers/plain-postgres.js';
import { privateDataRoot, removeDataRoot } from '../../core/helpers.js';

/** Each answer is one text value, so that any difference shows in the failure as a string. */
const POSTGRES_PARITY_QUERIES: Record<string, string> = {
  'lower Cyrillic': `SELECT lower('ТЕСТ Ёлка')`,
  'upper Cyrillic, German, Greek': `SELECT upper('тест ёлка straße ωμέγα')`,
  initcap: `SELECT initcap('élan ВИТАЛ ǆungla')`,
  'ILIKE Cyrillic': `SELECT ('ТЕСТ' ILIKE 'тест')::text || ('Ёж' ILIKE '%ё%')::text`,
  'ILIKE accented': `SELECT ('ÉCOLE' ILIKE 'école')::text`,
  'regex case-insensitive': `SELECT ('Привет, мир' ~* 'ПРИВЕТ')::text`,
  'regex word class': `SELECT ('Жук' ~ '^\\w+$')::text || ('naïve' ~ '^[[:alpha:]]+$')::text`,
  'ORDER BY mixed case and accents': `SELECT string_agg(v, ' ' ORDER BY v) FROM unnest(ARRAY['b','A','a','B','é','e','É','z','Z','_x','x-y','xy','Ёж','еж','ж','Ж','10','9']) v`,
  'comparison a < B': `SELECT ('a' < 'B')::text || ('é' < 'f')::text || ('Z' < 'a')::text`,
  'DISTINCT is case-sensitive': `SELECT count(DISTINCT v)::text FROM unnest(ARRAY['тест','ТЕСТ','Тест']) v`,
  'number formatting (lc_numeric)': `SELECT to_char(1234567.891, 'FM9G999G999D99')`,
  'month and day names (lc_time)': `SELECT to_char(date '2024-03-05', 'TMDay TMMonth')`,
  'money (lc_monetary)': `SELECT 1234.5::money::text`,
  'time zone': `SELECT current_setting('TimeZone')`,
  'timestamptz as text': `SELECT timestamptz '2024-06-01 12:00:00+02' ::text`,
  'local midnight': `SELECT date_trunc('day', timestamptz '2024-06-01 01:30:00+05')::text`,
  DateStyle: `SELECT current_setting('DateStyle')`,
  IntervalStyle: `SELECT current_setting('IntervalStyle')`,
  'server encoding': `SELECT current_setting('server_encoding')`,
};

async function answers(url: string): Promise<Record<string, string>> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const out: Record<string, string> = {};
    for (const [name, sql] of Object.entries(POSTGRES_PARITY_QUERIES))
      out[name] = String(Object.values((await client.query(sql)).rows[0] as object)[0]);
    // lc_messages: the language of error messages.
    out['error message'] = await client.query('SELECT 1/0').then(
      () => 'no error',
      (e: Error) => e.message,
    );
    return out;
  } finally {
    await client.end();
  }
}

/** What the official image's `ENV LANG en_US.utf8` gives, when this machine can give it. */
function imageLang(): string {
  const have = availableLocales().map((l) => l.toLowerCase());
  return have.includes('en_us.utf8') || have.includes('en_us.utf-8') ? 'en_US.utf8' : 'C.UTF-8';
}

describe('PostgreSQL answers like a default-configured server of the same major', () => {
  const dataRoot = privateDataRoot('parity');
  let db: TestDatabase;
  let plain: PlainPostgres;
  beforeAll(async () => {
    [db, plain] = await Promise.all([
      createTestDatabase({ dataRoot, worker: 'parity', cacheKey: 'parity' }),
      startPlainPostgres({ locale: { initdbArgs: [], env: { LANG: imageLang(), TZ: 'Etc/UTC' } } }),
    ]);
  });
  afterAll(async () => {
    await db?.destroy();
    await plain?.stop();
    await removeDataRoot(dataRoot);
  });

  it('runs the same major, and ours is tuned while the other is not', async () => {
    expect(db.server.major).toBe(plain.major);
    expect((await db.describe()).tuned).toBe(true);
  });

  it('lower(), ILIKE and regexes on Cyrillic text answer as on the default server', async () => {
    const ours = await answers(db.url);
    // The case a real suite met: with locale C, lower('ТЕСТ') is 'ТЕСТ' and ILIKE finds nothing.
    expect(ours['lower Cyrillic']).toBe('тест ёлка');
    expect(ours['ILIKE Cyrillic']).toBe('truetrue');
  });

  it('every answer in the list is the same', async () => {
    const [ours, theirs] = await Promise.all([answers(db.url), answers(plain.url)]);
    expect(ours).toEqual(theirs);
  });

  it('the locale option chooses another locale, on a server of its own', async () => {
    const c = await createTestDatabase({ dataRoot, worker: 'parity-c', cacheKey: 'parity', locale: 'C' });
    try {
      expect(c.server.port).not.toBe(db.server.port);
      const client = new pg.Client(c.url);
      await client.connect();
      const { rows } = await client.query(`SELECT lower('ТЕСТ') AS l, datcollate AS c FROM pg_database WHERE datname = current_database()`);
      await client.end();
      expect(rows[0]).toEqual({ l: 'ТЕСТ', c: 'C' });
    } finally {
      await c.destroy();
    }
  });
});
