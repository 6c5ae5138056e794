/**
 * Acceptance: real Jest (2 workers) on the fixture project, wired by withFastTestDb() and the
 * project's fast-test-db.config.ts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { expectPaired, expectPassed, expectUnpaired, expectPerFile, expectPerTest, expectPerWorker } from './expect.js';
import { BIN, coldJestCache, jest, processesUnder, run, sandbox, urlDatabase, waitNoProcesses } from './harness.js';
import type { LaterRecord } from '../fixtures/runners/jest-later/later-probe.js';

describe('jest', () => {
  test('each worker gets its own clone, migrate runs once, no server is left behind', async () => {
    const sb = sandbox('jest-once');
    try {
      // CPU pairing is off by default; this run turns it on to check it.
      const r = await jest(sb, { FAST_TEST_DB_CPU_PAIRING: '1' });
      expectPassed(r);
      expectPerWorker(r.records);
      expectPaired(r.records);
      expect(new Set(r.records.map((x) => x.pid)).size).toBeGreaterThanOrEqual(2);
      expect(sb.migrations()).toBe(1);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  test('a migrate given as a TypeScript module of the project (importing another) runs once, and every worker gets its tables', async () => {
    const sb = sandbox('jest-module');
    try {
      const r = await jest(sb, { FIXTURE_MIGRATE_FORM: 'module' });
      expectPassed(r);
      expectPerWorker(r.records);
      expect(sb.migrations()).toBe(1);
      expect(readFileSync(sb.migrateLog, 'utf8')).toMatch(/^\d+ module$/m);
    } finally {
      await sb.cleanup();
    }
  });

  test('a migrate that fails after the workers started stops the run once, in the global setup, with its own error and the fix', async () => {
    const sb = sandbox('jest-fail');
    try {
      const r = await jest(sb, { FIXTURE_MIGRATE_THROW: 'boom in migration 007' });
      expect(r.code).not.toBe(0);
      expect(r.records).toEqual([]);
      expect(r.output.match(/boom in migration 007/g)).toHaveLength(1);
      expect(r.output).toMatch(
        /fast-test-db: the run stops \(MIGRATION_FAILED\): migrate failed while building template \S+: boom in migration 007\n {2}fix: /,
      );
      // No test file ran on to fail on the same error.
      expect(r.output).not.toMatch(/the full error is shown with the first test file/);
      expect(sb.migrations()).toBe(1);
      expect(r.output).not.toMatch(/timed? ?out|Exceeded timeout/i);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  test("a worker's files export the URL noted for it and load nothing more, the first too (its database cloned ahead); the file after a dropped database takes the whole path and clones it again", async () => {
    const sb = sandbox('jest-later');
    try {
      // One worker: its files run one after another, the second to run dropping the database.
      const args = ['--config', 'jest.config.mjs', '--maxWorkers=1', coldJestCache(sb)];
      const r = await run(sb, BIN('jest'), args, { NODE_OPTIONS: '--import tsx', FIXTURE_TEST_MATCH: '<rootDir>/jest-later/*.test.ts' });
      if (r.code !== 0) throw new Error(`jest exited with ${r.code}:\n${r.output.slice(-6000)}`);
      const records = r.records as unknown as LaterRecord[];
      expect(records.map((x) => [x.whole, x.dropped])).toEqual([
        [false, false],
        [false, true],
        [true, false],
        [false, false],
      ]);
      expect(new Set(records.map((x) => x.url)).size).toBe(1);
      expect(urlDatabase(records[0]!.url)).toMatch(/_w1$/);
      // Every file reached the template's tables, the one after the drop too.
      for (const x of records) expect(x.colors).toBe(2);
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
      const second = await jest(sb, { ...env, DEBUG: 'fast-test-db:runner' });
      expectPassed(second);
      expectPerWorker(second.records);
      expect(sb.migrations()).toBe(1);
      // The running server's address went to the workers before its template was checked.
      expect(second.output).toMatch(/template \S+ ready in \d+ ms \(handed out early\)/);
      expect(processesUnder(sb.dataRoot).length).toBeGreaterThan(0);
    });

    test('isolation per file: every file starts from the template', async () => {
      const r = await jest(sb, { ...env, FIXTURE_ISOLATION: 'file', FIXTURE_LIGHT: '1' });
      expectPassed(r);
      expectPerFile(r.records);
      expectUnpaired(r.records);
      expect(sb.migrations()).toBe(1);
    });

    test('isolation per test: every test starts empty, seed rows kept', async () => {
      const r = await jest(sb, { ...env, FIXTURE_ISOLATION: 'test' });
      expectPassed(r);
      expectPerTest(r.records);
    });
  });
});
