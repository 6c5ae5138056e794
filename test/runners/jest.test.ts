/**
 * Acceptance: real Jest (2 workers) on the fixture project, wired by withFastTestDb() and the
 * project's fast-test-db.config.ts.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { expectPassed, expectPerFile, expectPerTest, expectPerWorker } from './expect.js';
import { jest, processesUnder, sandbox, waitNoProcesses } from './harness.js';

describe('jest', () => {
  test('each worker gets its own clone, migrate runs once, no server is left behind', async () => {
    const sb = sandbox('jest-once');
    try {
      const r = await jest(sb);
      expectPassed(r);
      expectPerWorker(r.records);
      expect(new Set(r.records.map((x) => x.pid)).size).toBeGreaterThanOrEqual(2);
      expect(sb.migrations()).toBe(1);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  describe('with the server reused across runs', () => {
    const sb = sandbox('jest-reuse');
    const env = { FAST_TEST_DB_REUSE: '1' };
    afterAll(() => sb.cleanup());

    test('a second run builds no template', async () => {
      expectPassed(await jest(sb, env));
      expect(sb.migrations()).toBe(1);
      const second = await jest(sb, env);
      expectPassed(second);
      expectPerWorker(second.records);
      expect(sb.migrations()).toBe(1);
      expect(processesUnder(sb.dataRoot).length).toBeGreaterThan(0);
    });

    test('isolation per file: every file starts from the template', async () => {
      const r = await jest(sb, { ...env, FIXTURE_ISOLATION: 'file' });
      expectPassed(r);
      expectPerFile(r.records);
      expect(sb.migrations()).toBe(1);
    });

    test('isolation per test: every test starts empty, seed rows kept', async () => {
      const r = await jest(sb, { ...env, FIXTURE_ISOLATION: 'test' });
      expectPassed(r);
      expectPerTest(r.records);
    });
  });
});
