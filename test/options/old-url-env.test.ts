/**
 * TEST_DATABASE_URL is the app's: the library reads its own FAST_TEST_DB_URL, says once per process
 * that the app's is set and not used, and uses it only where the user passes it as `url`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildContext } from '../../src/options/context.js';
import { ignoredUrlNote } from '../../src/options/resolve.js';

const APP_URL = 'postgres://app:app@127.0.0.1:5999/app_test';

describe('TEST_DATABASE_URL', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is not read as a server; one line says so, once per process, and how to use it', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (lines.push(String(s)), true));
    const first = buildContext({}, { env: { TEST_DATABASE_URL: APP_URL } });
    const second = buildContext({}, { env: { TEST_DATABASE_URL: APP_URL } });
    expect(first.resolved.url).toBeUndefined();
    expect(second.resolved.url).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^fast-test-db: TEST_DATABASE_URL is set but not used .*url: process\.env\.TEST_DATABASE_URL/);
  });

  it('is used when passed as the url option; FAST_TEST_DB_URL is ours', () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const env = { TEST_DATABASE_URL: APP_URL };
    expect(buildContext({ url: env.TEST_DATABASE_URL }, { env }).resolved.url).toBe(APP_URL);
    expect(buildContext({}, { env: { FAST_TEST_DB_URL: APP_URL } }).resolved.url).toBe(APP_URL);
  });

  it('says nothing where a URL was given, where a runner handed the server down, or where it is unset', () => {
    expect(ignoredUrlNote({}, { TEST_DATABASE_URL: APP_URL })).toMatch(/FAST_TEST_DB_URL/);
    expect(ignoredUrlNote({ url: APP_URL }, { TEST_DATABASE_URL: APP_URL })).toBeUndefined();
    expect(ignoredUrlNote({}, { TEST_DATABASE_URL: APP_URL, FAST_TEST_DB_URL: APP_URL })).toBeUndefined();
    expect(ignoredUrlNote({}, { TEST_DATABASE_URL: APP_URL, FAST_TEST_DB_SERVER: '[]' })).toBeUndefined();
    expect(ignoredUrlNote({}, { TEST_DATABASE_URL: APP_URL, FAST_TEST_DB_RUNNER: '{}' })).toBeUndefined();
    expect(ignoredUrlNote({}, {})).toBeUndefined();
  });
});
