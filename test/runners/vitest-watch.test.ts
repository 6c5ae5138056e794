/**
 * Vitest watch mode through its Node API: the re-run keeps the server and the template, and starts
 * every worker from a fresh clone (onTestsRerun); closing the watcher stops the server.
 */
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { expectPassed, expectPerWorker } from './expect.js';
import { run, sandbox, waitNoProcesses } from './harness.js';

test('vitest --watch: re-run on the same server and template, fresh clones, server gone on close', async () => {
  const sb = sandbox('vitest-watch');
  try {
    const r = await run(sb, process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'vitest-watch-driver.ts')], {
      FIXTURE_POOL: 'forks',
    });
    // Two runs of 4 files x 2 tests.
    if (r.code !== 0 || r.records.length !== 16) throw new Error(`watch driver failed (${r.code}):\n${r.output.slice(-5000)}`);
    const first = r.records.slice(0, 8);
    const second = r.records.slice(8);
    expectPassed({ ...r, records: first });
    expectPerWorker(first);
    expectPerWorker(second);
    expect(new Set(r.records.map((x) => new URL(x.envUrl!).port)).size).toBe(1);
    expect(sb.migrations()).toBe(1);
    expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
  } finally {
    await sb.cleanup();
  }
});
