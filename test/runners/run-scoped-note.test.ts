/**
 * A template built from migrate alone is scoped to its run and built again by the next: real Vitest,
 * Jest and node --test say so once on every run, beside the status line, and say nothing once
 * migrationFiles vouches for what migrate reads.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { RUN_SCOPED_NOTE } from '../../src/core/fingerprint.js';
import { expectPassed } from './expect.js';
import { jest, nodeTest, sandbox, vitest, type RunResult } from './harness.js';

const notes = (r: RunResult) =>
  stripVTControlCharacters(r.output)
    .split('\n')
    // node --test shows a file's stderr as TAP comments.
    .filter((l) => l.replace(/^# /, '') === RUN_SCOPED_NOTE).length;

const runners = {
  vitest: (sb: ReturnType<typeof sandbox>, env: Record<string, string>) => vitest(sb, 'forks', env),
  jest: (sb: ReturnType<typeof sandbox>, env: Record<string, string>) => jest(sb, env),
  'node:test': (sb: ReturnType<typeof sandbox>, env: Record<string, string>) => nodeTest(sb, env),
};

describe.each(Object.entries(runners))('%s', (name, runTests) => {
  const sb = sandbox(`scoped-${name.replace(':', '')}`);
  afterAll(() => sb.cleanup());
  // A server that outlives each run: what the second run could reuse, it is told it did not.
  const env = { FAST_TEST_DB_REUSE: '1' };

  test('migrate alone: the note once on each of two runs, and the template is built by both', async () => {
    for (const round of [1, 2]) {
      const r = await runTests(sb, { ...env, FIXTURE_TEMPLATE_INPUTS: 'none' });
      expectPassed(r);
      expect(notes(r), `run ${round}:\n${r.output}`).toBe(1);
      expect(sb.migrations()).toBe(round);
    }
    const quiet = await runTests(sb, { ...env, FIXTURE_TEMPLATE_INPUTS: 'none', FAST_TEST_DB_QUIET: '1' });
    expectPassed(quiet);
    expect(notes(quiet)).toBe(0);
  });

  test('with migrationFiles: no note, and the second run reuses the template', async () => {
    const before = sb.migrations();
    for (const round of [1, 2]) {
      const r = await runTests(sb, { ...env, FIXTURE_TEMPLATE_INPUTS: 'fast-test-db.config.ts' });
      expectPassed(r);
      expect(notes(r), `run ${round}:\n${r.output}`).toBe(0);
    }
    expect(sb.migrations()).toBe(before + 1);
  });
});
