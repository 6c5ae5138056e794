/**
 * A version outside the tested ones, found by the config's adapter in a real Vitest and Jest run's
 * main process before the run has read its options: one line per run, and none when the run is
 * quiet, told so by the option (in the config file) or by FAST_TEST_DB_QUIET.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { expectPassed } from './expect.js';
import { jest, sandbox, vitest, type RunResult, type Sandbox } from './harness.js';

const UNTESTED = /^fast-test-db: drizzle-orm 0\.42\.1 is not one of the tested versions/;

const lines = (r: RunResult) =>
  stripVTControlCharacters(r.output)
    .split('\n')
    .filter((l) => UNTESTED.test(l)).length;

/** A project directory whose drizzle-orm is 0.42.1, between the tested 0.40 and 0.45. */
function untestedProject(sb: Sandbox): string {
  const dir = join(sb.dir, 'untested-project');
  mkdirSync(join(dir, 'node_modules/drizzle-orm'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules/drizzle-orm/package.json'),
    JSON.stringify({ name: 'drizzle-orm', version: '0.42.1', main: 'index.js' }),
  );
  writeFileSync(join(dir, 'node_modules/drizzle-orm/index.js'), '');
  return dir;
}

const runners = {
  vitest: (sb: Sandbox, env: Record<string, string>) => vitest(sb, 'forks', env),
  jest: (sb: Sandbox, env: Record<string, string>) => jest(sb, env),
};

describe.each(Object.entries(runners))('%s', (name, runTests) => {
  const sb = sandbox(`untested-${name}`);
  afterAll(() => sb.cleanup());
  // One server for the three runs: the second and third join the first's.
  const env = { FAST_TEST_DB_REUSE: '1', FIXTURE_UNTESTED_DIR: untestedProject(sb) };

  test('the line once; none with quiet: true in the config file, none with FAST_TEST_DB_QUIET=1', async () => {
    const said = await runTests(sb, env);
    expectPassed(said);
    expect(lines(said), said.output).toBe(1);
    const option = await runTests(sb, { ...env, FIXTURE_QUIET: '1' });
    expectPassed(option);
    expect(lines(option), option.output).toBe(0);
    const fromEnv = await runTests(sb, { ...env, FAST_TEST_DB_QUIET: '1' });
    expectPassed(fromEnv);
    expect(lines(fromEnv), fromEnv.output).toBe(0);
  });
});
