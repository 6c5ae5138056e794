/**
 * A suite made serial for its one shared database (`maxWorkers: 1`) runs on the runner's default
 * number of workers under withFastTestDb, each worker on its own database; keepSerial keeps it
 * serial, and a command-line `-i`, which no config overrides, is named in the status line.
 * The runners see 4 CPUs (fixtures/runners/cpus.cjs): on this 2-core machine their default,
 * CPUs - 1, is one worker whether the setting was lifted or not.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { expectPassed, expectPerWorker } from './expect.js';
import { BIN, coldJestCache, FIXTURE, run, sandbox, vitest } from './harness.js';

const FOUR_CPUS = { FIXTURE_CPUS: '4', NODE_OPTIONS: `--require ${join(FIXTURE, 'cpus.cjs')}` };

describe('a serial setting that only the shared database needed', () => {
  const sb = sandbox('serial');
  const env = { FAST_TEST_DB_REUSE: '1', FIXTURE_LIGHT: '1', ...FOUR_CPUS };
  afterAll(() => sb.cleanup());
  const jest = (extra: Record<string, string>, args: string[] = []) =>
    run(sb, BIN('jest'), ['--config', 'jest.config.mjs', coldJestCache(sb), ...args], {
      ...env,
      NODE_OPTIONS: `--import tsx ${env.NODE_OPTIONS}`,
      FIXTURE_MAX_WORKERS: '1',
      ...extra,
    });
  const pids = (r: { records: { pid: number }[] }) => new Set(r.records.map((x) => x.pid)).size;

  test('Jest: maxWorkers 1 is dropped, and the files run on several workers, each on its own database', async () => {
    const r = await jest({});
    expectPassed(r);
    expectPerWorker(r.records);
    expect(pids(r)).toBeGreaterThanOrEqual(2);
    expect(r.output).toMatch(
      /; up to 3 workers, the runner's default on 4 CPUs \(maxWorkers: 1 dropped: each worker has its own database; keepSerial: true keeps it\)\n/,
    );
  });

  test('Jest: FAST_TEST_DB_KEEP_SERIAL=1 keeps it: one process runs every file', async () => {
    const r = await jest({ FAST_TEST_DB_KEEP_SERIAL: '1' });
    expectPassed(r);
    expect(pids(r)).toBe(1);
    expect(new Set(r.records.map((x) => x.database)).size).toBe(1);
    expect(r.output).toMatch(/; 1 worker \(maxWorkers: 1, kept: FAST_TEST_DB_KEEP_SERIAL\)\n/);
  });

  test('Jest: -i on the command line stays, and the status line says what dropping it gives', async () => {
    const r = await jest({ FIXTURE_MAX_WORKERS: '' }, ['-i']);
    expectPassed(r);
    expect(pids(r)).toBe(1);
    expect(r.output).toMatch(/; 1 worker: -i keeps the run serial; drop it to use up to 3 workers, each with its own database\n/);
  });

  test('Vitest: maxWorkers 1 is dropped, and the files run on several workers, each on its own database', async () => {
    const r = await vitest(sb, 'forks', { ...env, FIXTURE_WORKERS: '1' });
    expectPassed(r);
    expectPerWorker(r.records);
    expect(pids(r)).toBeGreaterThanOrEqual(2);
    expect(r.output).toMatch(/; up to 3 workers, the runner's default on 4 CPUs \(maxWorkers: 1 dropped: /);
  });
});
