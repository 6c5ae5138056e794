/** examples/drizzle-vitest runs green as a user would run it: its own Vitest, config and migrations. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { linkExamplesToBuild } from '../../package/examples.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

// The child is its own Vitest run: it must not inherit this run's worker identity.
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'TEST') delete env[key];
  return env;
}

it('examples/drizzle-vitest passes', async () => {
  linkExamplesToBuild();
  const run = await promisify(execFile)(
    `${root}node_modules/.bin/vitest`,
    ['run', '--root', 'examples/drizzle-vitest', '--reporter', 'json'],
    {
      cwd: root,
      env: childEnv(),
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((e: { stdout?: string; stderr?: string; code?: number }) => {
    throw new Error(`the example failed (exit ${e.code}):\n${e.stdout}\n${e.stderr}`);
  });
  const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
  expect(report.success).toBe(true);
  expect(report.numFailedTests).toBe(0);
  expect(report.numPassedTests).toBeGreaterThanOrEqual(6);
}, 180_000);
