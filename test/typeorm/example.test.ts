/** Runs examples/typeorm-jest with its own Jest at 1% of seed 000's workload and checks it passed. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

it('examples/typeorm-jest passes under Jest with @swc/jest', async () => {
  const example = join(root, 'examples/typeorm-jest');
  // Jest finds jest.config.cjs in the example's directory, as a user would run it (`npx jest`).
  const { stdout, stderr } = await run(join(root, 'node_modules/.bin/jest'), [], {
    cwd: example,
    env: { ...process.env, POINTS_SCALE: '0.01', CI: 'true', FORCE_COLOR: '0' },
    timeout: 180_000,
  }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`jest failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  });
  const report = stdout + stderr;
  expect(report).toMatch(/Test Suites:\s+4 passed, 4 total/);
  expect(report).toMatch(/Tests:\s+7 passed, 7 total/);
});
