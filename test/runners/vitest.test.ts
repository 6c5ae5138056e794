/**
 * Acceptance: real Vitest (2 workers) on the fixture project, in forks and in threads. Threads
 * share one pid: the databases must still be one per worker (VITEST_POOL_ID), never per pid.
 */
import { stripVTControlCharacters } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { expectAppUrls, expectPaired, expectPassed, expectPerFile, expectPerTest, expectPerWorker } from './expect.js';
import { processesUnder, sandbox, vitest, waitNoProcesses } from './harness.js';

describe('vitest', () => {
  test('forks: each worker gets its own clone, migrate runs once, no server is left behind', async () => {
    const sb = sandbox('vitest-forks');
    try {
      // CPU pairing is off by default; this run turns it on to check it.
      const r = await vitest(sb, 'forks', { FAST_TEST_DB_CPU_PAIRING: '1' });
      expectPassed(r);
      expectPerWorker(r.records);
      expectPaired(r.records);
      expect(sb.migrations()).toBe(1);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  test('a migrate given as a TypeScript module of the project (importing another) runs once, and every worker gets its tables', async () => {
    const sb = sandbox('vitest-module');
    try {
      const r = await vitest(sb, 'forks', { FIXTURE_MIGRATE_FORM: 'module' });
      expectPassed(r);
      expectPerWorker(r.records);
      expect(sb.migrations()).toBe(1);
      expect(readFileSync(sb.migrateLog, 'utf8')).toMatch(/^\d+ module$/m);
    } finally {
      await sb.cleanup();
    }
  });

  test('a migrate that fails after the workers started stops the run once, in the global setup, with its own error and the fix', async () => {
    const sb = sandbox('vitest-fail');
    try {
      const r = await vitest(sb, 'forks', { FIXTURE_MIGRATE_THROW: 'boom in migration 007' });
      expect(r.code).not.toBe(0);
      expect(r.records).toEqual([]);
      const output = stripVTControlCharacters(r.output);
      expect(output.match(/boom in migration 007/g)).toHaveLength(1);
      expect(output).toMatch(
        /fast-test-db: the run stops \(MIGRATION_FAILED\): migrate failed while building template \S+: boom in migration 007\n {2}fix: /,
      );
      expect(sb.migrations()).toBe(1);
      expect(output).not.toMatch(/timed out|Exceeded timeout/i);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  describe('with the server reused across runs', () => {
    const sb = sandbox('vitest-reuse');
    const env = { FAST_TEST_DB_REUSE: '1' };
    afterAll(() => sb.cleanup());

    test('threads: one database per thread in one process; a second run builds no template', async () => {
      const first = await vitest(sb, 'threads', { ...env, FAST_TEST_DB_CPU_PAIRING: '1' });
      expectPassed(first);
      expectPerWorker(first.records);
      // Threads of one process: each pairs its own thread.
      expectPaired(first.records);
      expect(new Set(first.records.map((x) => x.pid)).size).toBe(1);
      expect(new Set(first.records.map((x) => x.threadId)).size).toBeGreaterThanOrEqual(2);
      expect(sb.migrations()).toBe(1);
      const second = await vitest(sb, 'forks', env);
      expectPassed(second);
      expectPerWorker(second.records);
      expect(sb.migrations()).toBe(1);
      expect(processesUnder(sb.dataRoot).length).toBeGreaterThan(0);
    });

    test('isolation per file (threads)', async () => {
      const r = await vitest(sb, 'threads', { ...env, FIXTURE_ISOLATION: 'file' });
      expectPassed(r);
      expectPerFile(r.records);
    });

    test('one worker: the app finds its URL in every file without our setup file; two workers keep it, each on its own database', async () => {
      const ours = /src\/runners\/vitest\/setup\.ts$/;
      const oneWorker = { ...env, FIXTURE_WORKERS: '1', FIXTURE_SLEEP_MS: '0' };
      // The path needs a server already up: run alone, this test starts it first.
      expectPassed(await vitest(sb, 'forks', oneWorker));
      const lone = await vitest(sb, 'forks', { ...oneWorker, DEBUG: 'fast-test-db:runner' });
      expectPassed(lone);
      expectAppUrls(lone.records);
      // One database, worker 1's, carried from file to file.
      expect(new Set(lone.records.map((r) => r.database))).toEqual(new Set([expect.stringMatching(/_w1$/)]));
      expect(lone.records.map((r) => r.before).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      for (const r of lone.records) expect(r.setupFiles?.some((f) => ours.test(f))).toBe(false);
      // The lone worker's run waited for the template check; with two workers it runs beside their start.
      expect(lone.output).toMatch(/template \S+ ready in \d+ ms; isolation/);
      const two = await vitest(sb, 'forks', { ...env, DEBUG: 'fast-test-db:runner' });
      expectPassed(two);
      expect(two.output).toMatch(/template \S+ ready in \d+ ms \(handed out early\)/);
      expectPerWorker(two.records);
      for (const r of two.records) expect(r.setupFiles?.some((f) => ours.test(f))).toBe(true);
    });

    test('isolation per test (forks)', async () => {
      const r = await vitest(sb, 'forks', { ...env, FIXTURE_ISOLATION: 'test' });
      expectPassed(r);
      expectPerTest(r.records);
      expect(sb.migrations()).toBe(1);
    });
  });
});
