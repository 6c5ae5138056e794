/**
 * A template build slower than Jest's 5 s hook timeout, which the workers wait for in our own
 * beforeAll: the wait has its own timeout, so the user's hook timeout never fails the files.
 */
import { expect, test } from 'vitest';
import { expectPassed } from './expect.js';
import { jest, sandbox, waitNoProcesses } from './harness.js';

test("workers wait for a template that takes longer than Jest's hook timeout, and every file passes", async () => {
  const sb = sandbox('jest-slow');
  try {
    const r = await jest(sb, { FIXTURE_MIGRATE_DELAY_MS: '15000' });
    expectPassed(r);
    expect(r.output).not.toMatch(/Exceeded timeout/);
    expect(sb.migrations()).toBe(1);
    expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
  } finally {
    await sb.cleanup();
  }
}, 180_000);
