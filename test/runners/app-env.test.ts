/**
 * The `env` option on real Vitest runs and real embedded servers: an app that reads
 * DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD/DB_DATABASE connects to its worker's database with no
 * setup file of its own, on PostgreSQL and on MariaDB.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, ROOT, runReporting, sandbox } from './harness.js';

const FIXTURE = join(ROOT, 'test/fixtures/app-env');

interface Record_ {
  file: string;
  env: Record<string, string>;
  current: string;
}

describe.each(['postgres', 'mysql'] as const)('env mapping on %s', (engine) => {
  const sb = sandbox(`app-env-${engine}`);
  afterAll(() => sb.cleanup());

  test("each test file reaches its worker's database through the app's own env names", async () => {
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
      expect(rec.env.DB_HOST).toBe('127.0.0.1');
      expect(Number(rec.env.DB_PORT)).toBeGreaterThan(0);
      expect(rec.env.DB_USERNAME).not.toBe('');
      // The database the app reached is the one it was told, a worker's clone of ours.
      expect(rec.current).toBe(rec.env.DB_DATABASE);
      expect(rec.current).toMatch(/^ftdb_/);
    }
  }, 240_000);
});
