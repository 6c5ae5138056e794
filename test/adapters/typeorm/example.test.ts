/**
 * Runs examples/typeorm-jest with its own Jest config (withFastTestDb, TypeORM template built in
 * the global setup) at 1% of its Point workload, and checks that it passed.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { linkExamplesToBuild } from '../../package/examples.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The outer runner's own variables would make the inner Jest think it is a worker of ours. */
const LEAKY = /^(VITEST|JEST_|FAST_TEST_DB_RUNNER$|FAST_TEST_DB_RUN_ID$|NODE_OPTIONS$|DATABASE_URL$)/;

it('examples/typeorm-jest passes under Jest with @swc/jest', async () => {
  const example = join(root, 'examples/typeorm-jest');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !LEAKY.test(k)));
  linkExamplesToBuild();
  // Jest finds jest.config.cjs in the example's directory, as a user would run it (`npx jest`).
  const { stdout, stderr } = await run(join(root, 'node_modules/.bin/jest'), [], {
    cwd: example,
    env: { ...env, FAST_TEST_DB_PREFIX: 'ftdbex', POINTS_SCALE: '0.01', CI: 'true', FORCE_COLOR: '0' },
    timeout: 180_000,
  }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`jest failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  });
  const report = stdout + stderr;
  expect(report).toMatch(/Test Suites:\s+4 passed, 4 total/);
  expect(report).toMatch(/Tests:\s+7 passed, 7 total/);
}, 240_000);
