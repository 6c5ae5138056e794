/**
 * Acceptance: `node --import fast-test-db/node-test --test --test-concurrency=2` on the fixture
 * project. On Node 20 only the test files' processes import the module, so each file gets its own
 * clone; the template is still built once and the server outlives single files.
 */
import { describe, expect, test } from 'vitest';
import { expectAppUrls, expectPassed, expectPerFile, expectPerTest } from './expect.js';
import { nodeTest, sandbox, waitNoProcesses } from './harness.js';

describe('node:test', () => {
  test('concurrency 2: a database per file, migrate once, one server, none left behind', async () => {
    const sb = sandbox('node-test');
    try {
      const r = await nodeTest(sb);
      expectPassed(r);
      expectAppUrls(r.records);
      expectPerFile(r.records);
      expect(new Set(r.records.map((x) => x.database)).size).toBe(4);
      expect(new Set(r.records.map((x) => new URL(x.envUrl!).port)).size).toBe(1);
      expect(sb.migrations()).toBe(1);
      // The fixture's config gives migrate: no note about empty databases.
      expect(r.output).not.toContain('gets an empty database');
      // The status line the other runners print, once per run although every file has its own process.
      const banners = r.output.match(/fast-test-db: PostgreSQL [\d.]+ \(embedded, ours\), tuned; template ftdb_\w+/g) ?? [];
      expect(banners, r.output).toHaveLength(1);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  test('isolation per test: a root beforeEach empties the database before every test', async () => {
    const sb = sandbox('node-test-reset');
    try {
      const r = await nodeTest(sb, { FIXTURE_ISOLATION: 'test' });
      expectPassed(r);
      expectPerTest(r.records);
    } finally {
      await sb.cleanup();
    }
  });
});
