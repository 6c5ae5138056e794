/**
 * Runs examples/prisma-vitest as a user would (its own Vitest config wrapped in withFastTestDb
 * with prismaTemplate, a global setup generating the client, a setup file calling prismaClient on
 * DATABASE_URL) and checks that its suite passed.
 */
import { spawnSync } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { expect, it } from 'vitest';
import { linkExamplesToBuild } from '../../package/examples.js';

it('examples/prisma-vitest passes', () => {
  linkExamplesToBuild();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS'));
  // Its own name prefix, so that its worker databases never meet this suite's.
  env.FAST_TEST_DB_PREFIX = 'ftdbex';
  env.NO_COLOR = '1';
  delete env.FORCE_COLOR;
  const r = spawnSync('node_modules/.bin/vitest', ['run', '--root', 'examples/prisma-vitest', '--reporter', 'verbose'], {
    env,
    encoding: 'utf8',
    timeout: 240_000,
  });
  const out = stripVTControlCharacters(`${r.stdout}\n${r.stderr}`);
  expect(r.status, out).toBe(0);
  expect(out).toMatch(/Test Files\s+2 passed/);
  expect(out).toMatch(/Tests\s+9 passed/);
  expect(out).toContain('the feed lists published posts newest first');
}, 300_000);
