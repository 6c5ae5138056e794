/**
 * The `login` option on real Vitest runs and real embedded servers: app code that spells out its
 * user and password reaches its worker's database with them and may use, empty and add to the
 * tables the template's migration made, on PostgreSQL and on MariaDB (whose root password is one
 * fast-test-db made, which the app cannot know).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, ROOT, runReporting, sandbox } from './harness.js';

const FIXTURE = join(ROOT, 'test/fixtures/app-login');

interface Record_ {
  file: string;
  database: string;
  current: string;
  user: string;
  rows: number;
  urlUser: string;
  urlPasswordIsApps: boolean;
}

describe.each(['postgres', 'mysql'] as const)('login on %s', (engine) => {
  const sb = sandbox(`app-login-${engine}`);
  afterAll(() => sb.cleanup());

  test("each test file reaches its worker's database with the login written in the app's code", async () => {
    const r = await runReporting<Record_>(
      BIN('vitest'),
      ['run', '--config', 'vitest.config.ts'],
      FIXTURE,
      { ...sb.env, FIXTURE_ENGINE: engine },
      join(sb.dir, 'report.jsonl'),
    );
    expect(r.code, r.output).toBe(0);
    expect(r.records.map((x) => x.file).sort()).toEqual(['a', 'b']);
    for (const rec of r.records) {
      expect(rec.user).toBe('app_user');
      expect(rec.current).toBe(rec.database);
      expect(rec.current).toMatch(/^ftdb_/);
      // Its own row only: each worker has its own clone of the template's table.
      expect(rec.rows).toBe(1);
      expect(rec.urlUser).toBe('app_user');
      expect(rec.urlPasswordIsApps).toBe(true);
    }
    // Two workers, two databases.
    expect(new Set(r.records.map((x) => x.current)).size).toBe(2);
    expect(r.output).not.toContain('app-secret-1');
  }, 240_000);

  test('with login.database, code that names its database reaches that one, a clone of the template the login owns', async () => {
    const r = await runReporting<Record_>(
      BIN('vitest'),
      ['run', '--config', 'vitest.config.ts'],
      FIXTURE,
      { ...sb.env, FIXTURE_ENGINE: engine, FIXTURE_LOGIN_DB: 'app_db' },
      join(sb.dir, 'report-db.jsonl'),
    );
    expect(r.code, r.output).toBe(0);
    expect(r.records.map((x) => x.file).sort()).toEqual(['a', 'b']);
    for (const rec of r.records) {
      expect(rec.current).toBe('app_db');
      expect(rec.user).toBe('app_user');
      // One database for the run's workers: the other file's row may be there too.
      expect(rec.rows).toBeGreaterThanOrEqual(1);
      expect(rec.urlUser).toBe('app_user');
    }
  }, 240_000);
});
