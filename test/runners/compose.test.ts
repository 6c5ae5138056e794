/**
 * A runner integration and an adapter's *TestDb() in one suite, under real Vitest and Jest: the
 * adapter must not take (and drop) the database the runner made for the same worker. With another
 * schema it gets its own database next to the runner's; with the runner's own schema it uses the
 * runner's database, so the app and the adapter see the same rows.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { GiftRecord } from '../fixtures/runners/compose/gift.js';
import { BIN, FIXTURE, run, sandbox, waitNoProcesses, type RunResult } from './harness.js';

const COMPOSE = join(FIXTURE, 'compose');

function passed(r: RunResult): GiftRecord[] {
  if (r.code !== 0) throw new Error(`runner exited with ${r.code}:\n${r.output.slice(-6000)}`);
  const records = r.records as unknown as GiftRecord[];
  expect(records).toHaveLength(4);
  return records;
}

/** Another schema: the adapter's database is its own, named after the worker and its template; the runner's stays as the runner made it. */
function expectOwnDatabases(records: GiftRecord[]): void {
  for (const r of records) {
    expect(r.adapterDb).not.toBe(r.runnerDb);
    expect(r.adapterDb).toMatch(new RegExp(`^${r.runnerDb}_t[0-9a-f]{8}$`));
    expect(r.runnerGifts).toBeNull(); // the runner's template has no gifts table, and nobody replaced it
  }
  // Each file makes a fresh adapter database: its first test sees one gift, its second two.
  for (const file of ['a', 'b']) expect(records.filter((r) => r.file === file).map((r) => r.gifts)).toEqual([1, 2]);
}

describe('an adapter under a runner integration', () => {
  test('vitest, the runner without migrate: the adapter takes its own database', async () => {
    const sb = sandbox('compose-vitest');
    try {
      const r = await run(sb, BIN('vitest'), ['run', '--config', 'vitest.config.ts'], {}, COMPOSE);
      expectOwnDatabases(passed(r));
      // The global setup's one line about the server (not a terminal here: no status line).
      expect(
        r.output.match(/^fast-test-db: PostgreSQL \S+ \(embedded, ours\), tuned; template ftdb_tpl_\w+ built; up to 2 workers$/gm),
      ).toHaveLength(1);
      expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    } finally {
      await sb.cleanup();
    }
  });

  test('vitest, the runner without migrate: createTestDatabase() in a test file takes its own database', async () => {
    const sb = sandbox('compose-core');
    try {
      const r = await run(sb, BIN('vitest'), ['run', '--config', 'vitest.config.ts'], { FIXTURE_COMPOSE: 'core' }, COMPOSE);
      expectOwnDatabases(passed(r));
    } finally {
      await sb.cleanup();
    }
  });

  test('vitest, the runner with the same schema: the adapter uses the runner database', async () => {
    const sb = sandbox('compose-shared');
    try {
      const records = passed(await run(sb, BIN('vitest'), ['run', '--config', 'vitest.config.ts'], { FIXTURE_COMPOSE: 'shared' }, COMPOSE));
      for (const r of records) {
        expect(r.adapterDb).toBe(r.runnerDb);
        expect(r.runnerGifts).toBe(r.gifts); // the app sees what the adapter wrote
      }
      // Per-worker isolation: a worker's second file sees the rows of its first.
      const perDb = new Map<string, number[]>();
      for (const r of records) perDb.set(r.adapterDb, [...(perDb.get(r.adapterDb) ?? []), r.gifts]);
      for (const counts of perDb.values()) expect(counts).toEqual(counts.map((_, i) => i + 1));
    } finally {
      await sb.cleanup();
    }
  });

  test('jest, the runner without migrate, the app connected first: the adapter takes its own database', async () => {
    const sb = sandbox('compose-jest');
    try {
      const r = await run(
        sb,
        BIN('jest'),
        ['--config', 'jest.config.mjs', '--maxWorkers=2', `--cacheDirectory=${join(sb.dir, 'jest-cache')}`],
        { NODE_OPTIONS: '--import tsx' },
        COMPOSE,
      );
      expectOwnDatabases(passed(r));
    } finally {
      await sb.cleanup();
    }
  });
});
