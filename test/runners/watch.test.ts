/**
 * Watch mode, in process: Jest calls globalSetup/globalTeardown around every re-run. The server must
 * stay up, the template must not be rebuilt, and each re-run must start from fresh clones.
 */
import { afterAll, expect, test } from 'vitest';
import globalSetup from '../../src/runners/jest/global-setup.js';
import globalTeardown from '../../src/runners/jest/global-teardown.js';
import { currentRun } from '../../src/runners/shared/global.js';
import { readHandoff } from '../../src/options/handoff.js';
import { workerTarget } from '../../src/runners/shared/handoff.js';
import { settled } from '../../src/runners/shared/ready.js';
import { ensureCloned } from '../../src/runners/shared/worker.js';
import { alreadyCloned } from '../../src/runners/shared/notes.js';
import { FIXTURE, processesUnder, sandbox } from './harness.js';

const sb = sandbox('watch');
const saved = { ...process.env };
afterAll(async () => {
  await currentRun()?.teardown();
  process.env = saved;
  await sb.cleanup();
});

test('jest --watch re-runs reuse the server and the template and start from fresh clones', async () => {
  Object.assign(process.env, sb.env);
  for (const k of [
    'JEST_WORKER_ID',
    'VITEST_POOL_ID',
    'VITEST_WORKER_ID',
    'FAST_TEST_DB_RUN_ID',
    'FAST_TEST_DB_SERVER',
    'FAST_TEST_DB_RUNNER',
  ])
    delete process.env[k];
  const watch = { watch: true, rootDir: FIXTURE };

  await globalSetup(watch, { rootDir: FIXTURE });
  // The global setup hands out a server that may still be starting; a worker waits for it.
  const first = await settled(readHandoff()!);
  expect(first.isolation).toBe('worker');
  const target = workerTarget(first, '1');
  await ensureCloned(first, target.name);
  expect(alreadyCloned(first, target.name)).toBe(true);
  await globalTeardown(watch);
  expect(processesUnder(sb.dataRoot).length).toBeGreaterThan(0);

  await globalSetup(watch, { rootDir: FIXTURE });
  const second = readHandoff()!;
  expect(second.server.port).toBe(first.server.port);
  expect(second.template).toBe(first.template);
  expect(second.run).toBe(first.run);
  // The re-run dropped the first run's clone: the worker clones afresh.
  expect(alreadyCloned(second, target.name)).toBe(false);
  expect(sb.migrations()).toBe(1);

  await globalTeardown({});
  expect(currentRun()).toBeUndefined();
  const deadline = Date.now() + 10_000;
  while (processesUnder(sb.dataRoot).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(processesUnder(sb.dataRoot)).toEqual([]);
});
