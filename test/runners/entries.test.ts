/**
 * A runner entry used under another runner names the entry of the runner it is in: each case runs
 * the real node --test or Mocha on a file that loads one entry without its global setup.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentRunner } from '../../src/runners/shared/current-runner.js';
import { BIN, LEAKY, ROOT } from './harness.js';

const DIR = join(ROOT, 'test/fixtures/runners/entries');

interface Outcome {
  loaded?: boolean;
  name?: string;
  code?: string;
  message?: string;
}

async function load(runner: 'node-test' | 'mocha', entry: string, call?: string): Promise<Outcome> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !LEAKY.test(k)));
  const [command, args] =
    runner === 'node-test'
      ? [process.execPath, ['--import', 'tsx', '--test', join(DIR, 'entry.node.test.mjs')]]
      : [BIN('mocha'), [join(DIR, 'entry.mocha.spec.mjs')]];
  const child = spawn(command, args, {
    cwd: DIR,
    env: { ...clean, NODE_OPTIONS: runner === 'mocha' ? '--import tsx' : '', FIXTURE_ENTRY: entry, FIXTURE_CALL: call ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  await new Promise((r) => child.on('close', r));
  const line = output.split('\n').find((l) => l.includes('ENTRY {'));
  if (!line) throw new Error(`no outcome in the output:\n${output}`);
  return JSON.parse(line.slice(line.indexOf('ENTRY ') + 6)) as Outcome;
}

describe('runner entries under the wrong runner', () => {
  it("the Jest setup file under node:test names fast-test-db/node-test, not Jest's wrapper", async () => {
    const r = await load('node-test', 'src/runners/jest/setup.ts');
    expect(r).toMatchObject({ name: 'FastTestDbError', code: 'BAD_OPTION' });
    expect(r.message).toContain("fast-test-db/jest's setup file is for Jest, and this process runs under node:test");
    expect(r.message).toContain('fix: use the node:test entry instead: run node --import fast-test-db/node-test --test');
    expect(r.message).not.toContain('withFastTestDb');
  });

  it('testDatabase() of fast-test-db/vitest under node:test is a FastTestDbError naming fast-test-db/node-test', async () => {
    const r = await load('node-test', 'src/runners/vitest/index.ts', 'testDatabase');
    expect(r).toMatchObject({ name: 'FastTestDbError', code: 'BAD_OPTION' });
    expect(r.message).toContain("testDatabase() from 'fast-test-db/vitest' is for Vitest, and this process runs under node:test");
    expect(r.message).toContain("take testDatabase from 'fast-test-db/node-test'");
  });

  it('the Mocha entry without its global setup names mocha --require, which is what it exports', async () => {
    const r = await load('mocha', 'src/runners/mocha/index.ts', 'testDatabase');
    expect(r).toMatchObject({ name: 'FastTestDbError', code: 'BAD_OPTION' });
    expect(r.message).toContain('fast-test-db/mocha found no handoff from its global setup');
    expect(r.message).toContain('mocha --require fast-test-db/mocha');
    expect(r.message).not.toContain('withFastTestDb');
  });

  it("fast-test-db/jest's testDatabase() under Mocha names the Mocha entry", async () => {
    const r = await load('mocha', 'src/runners/jest/index.ts', 'testDatabase');
    expect(r).toMatchObject({ code: 'BAD_OPTION' });
    expect(r.message).toContain('fast-test-db/jest is for Jest, and this process runs under Mocha');
    expect(r.message).toContain('mocha --require fast-test-db/mocha');
  });
});

describe('currentRunner', () => {
  // An empty script: node --test with no file argument.
  const at = (script: string, env: NodeJS.ProcessEnv = {}, execArgv: string[] = []) => currentRunner(env, script, execArgv);
  it("reads a runner's own processes from their script", () => {
    expect(at('/p/node_modules/jest-worker/build/workers/processChild.js', { VITEST: 'true' })).toBe('jest');
    expect(at('/p/node_modules/.bin/jest')).toBe('jest');
    expect(at('/p/node_modules/vitest/dist/workers/forks.js', { JEST_WORKER_ID: '1' })).toBe('vitest');
    expect(at('/p/node_modules/.pnpm/mocha@11.0.0/node_modules/mocha/lib/nodejs/worker.js')).toBe('mocha');
    expect(at('/p/node_modules/playwright/lib/common/process.js')).toBe('playwright');
  });
  it('reads node:test from its context or flag, and other workers from their env vars', () => {
    expect(at('/p/test/jest/a.test.mjs', { NODE_TEST_CONTEXT: 'child-v8' })).toBe('node-test');
    expect(at('', {}, ['--test'])).toBe('node-test');
    expect(at('/p/script.mjs', { VITEST_POOL_ID: '2' })).toBe('vitest');
    expect(at('/p/script.mjs', { TEST_WORKER_INDEX: '0' })).toBe('playwright');
    expect(at('/p/script.mjs')).toBeUndefined();
  });
});
