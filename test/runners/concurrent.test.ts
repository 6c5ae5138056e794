/**
 * Two runs of one project at once, as two terminals (a watch run beside `npm test`) or two commands
 * of one CI job make them: real Vitest processes on the fixture project in test/fixtures/concurrent,
 * sharing one server. Each run marks its database, waits until the other run (or a `clean`) is
 * under way, then checks its row is still there and that recreate() still finds the template.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../cli/cli.js';
import { BIN, ROOT, run, sandbox, type RunResult, type Sandbox } from './harness.js';

const PROJECT = join(ROOT, 'test/fixtures/concurrent');

const vitest = (sb: Sandbox, config: string, env: Record<string, string>) =>
  run(sb, BIN('vitest'), ['run', '--config', config], env, PROJECT);

async function waitFor(what: () => boolean, label: string, runs: Array<Promise<RunResult>>): Promise<void> {
  let ended: RunResult | undefined;
  for (const r of runs) void r.then((x) => (ended ??= x));
  const deadline = Date.now() + 90_000;
  while (!what()) {
    // A run that ended before it reached the barrier failed: show why instead of waiting.
    if (ended) throw new Error(`a run ended before ${label}:\n${ended.output}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function expectPassed(r: RunResult): void {
  expect(r.output).toMatch(/1 passed/);
  expect(r.code, r.output).toBe(0);
}

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.cleanup();
  sb = undefined;
});

describe('two runs of one project at once', () => {
  for (const [label, config, env] of [
    // Without a runner both name their database after VITEST_POOL_ID alone: ftdb_w1.
    ['createTestDatabase() in each test file', 'vitest.standalone.config.ts', {}],
    // Two commands of one CI job share the CI's run id.
    ['the runner integration, with one CI run id', 'vitest.config.ts', { GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1' }],
  ] as const) {
    test(`${label}: neither run drops or reuses the other's database, both pass`, async () => {
      sb = sandbox('concurrent');
      const barrier = mkdtempSync(join(sb.dir, 'barrier-'));
      const start = (tag: string) => vitest(sb!, config, { ...env, FIXTURE_TAG: tag, FIXTURE_BARRIER: barrier });
      // The second starts once the first holds its database, as a second terminal would.
      const first = start('first');
      await waitFor(() => existsSync(join(barrier, 'first.ready')), 'the first run was ready', [first]);
      const second = start('second');
      await waitFor(() => existsSync(join(barrier, 'second.ready')), 'the second run was ready', [first, second]);
      writeFileSync(join(barrier, 'go'), '');
      const [a, b] = await Promise.all([first, second]);
      expectPassed(a);
      expectPassed(b);
    });
  }

  test('`clean --older-than 0` during a live run keeps the template the run clones from', async () => {
    sb = sandbox('concurrent-clean');
    const env = { FAST_TEST_DB_REUSE: '1' };
    // An earlier run built the template and ended: the template's builder is gone.
    expectPassed(await vitest(sb, 'vitest.config.ts', { ...env, FIXTURE_TAG: 'earlier' }));
    const barrier = mkdtempSync(join(sb.dir, 'barrier-'));
    const live = vitest(sb, 'vitest.config.ts', { ...env, FIXTURE_TAG: 'live', FIXTURE_BARRIER: barrier });
    await waitFor(() => readdirSync(barrier).includes('live.ready'), 'the live run was ready', [live]);
    const cleaned = await runCli(
      ['clean', '--older-than', '0', '--databases-only'],
      { ...process.env, ...sb.env, NO_COLOR: '1' },
      {
        cwd: PROJECT,
      },
    );
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toMatch(/kept template ftdb_tpl_\S+: in use by process \d+/);
    writeFileSync(join(barrier, 'go'), '');
    expectPassed(await live);
  });
});
