/** Which serial settings of a Jest or Vitest config withFastTestDb drops, which it keeps, and why. */
import { afterEach, describe, expect, test } from 'vitest';
import { checkLift, liftJestSerial, liftVitestSerial, notedSerial, workersPhrase } from '../../src/runners/shared/serial.js';

const argv = (...flags: string[]) => ['node', 'jest', ...flags];

describe('serial settings', () => {
  afterEach(() => liftJestSerial({}, {}, argv(), {}));

  test('Jest: maxWorkers 1 or "1" is dropped, other counts and keys stay', () => {
    expect(liftJestSerial({ maxWorkers: 1, testEnvironment: 'node' }, {}, argv(), {})).toEqual({ testEnvironment: 'node' });
    expect(notedSerial()).toEqual({ setting: 'maxWorkers: 1', lifted: true });
    expect(liftJestSerial({ maxWorkers: '1' }, {}, argv(), {})).toEqual({});
    expect(liftJestSerial({ maxWorkers: 2 }, {}, argv(), {})).toEqual({ maxWorkers: 2 });
    expect(notedSerial()).toBeUndefined();
  });

  test('kept by keepSerial, FAST_TEST_DB_KEEP_SERIAL, and login.database', () => {
    expect(liftJestSerial({ maxWorkers: 1 }, { keepSerial: true }, argv(), {})).toEqual({ maxWorkers: 1 });
    expect(notedSerial()?.kept).toBe('keepSerial: true');
    expect(liftJestSerial({ maxWorkers: 1 }, {}, argv(), { FAST_TEST_DB_KEEP_SERIAL: '1' })).toEqual({ maxWorkers: 1 });
    const login = { user: 'test', password: 'test', database: 'test' };
    expect(liftJestSerial({ maxWorkers: 1 }, { login }, argv(), {})).toEqual({ maxWorkers: 1 });
    expect(notedSerial()?.kept).toMatch(/^login\.database/);
    // keepSerial: false in code wins over the env var.
    expect(liftJestSerial({ maxWorkers: 1 }, { keepSerial: false }, argv(), { FAST_TEST_DB_KEEP_SERIAL: '1' })).toEqual({});
  });

  test('Jest command-line flags are named, never lifted', () => {
    for (const [flags, setting] of [
      [['--runInBand'], '--runInBand'],
      [['-i'], '-i'],
      [['--maxWorkers=1'], '--maxWorkers 1'],
      [['-w', '1'], '-w 1'],
    ] as const) {
      liftJestSerial({}, {}, argv(...flags), {});
      expect(notedSerial()).toEqual({ setting, lifted: false, kept: 'the command line' });
    }
    liftJestSerial({}, {}, argv('--maxWorkers=4', '--', '-i'), {});
    expect(notedSerial()).toBeUndefined();
  });

  test('Vitest: fileParallelism false and maxWorkers 1 are dropped; its flags and VITEST_MAX_WORKERS are named', () => {
    expect(liftVitestSerial({ fileParallelism: false, maxWorkers: 1, pool: 'forks' }, {}, argv(), {})).toEqual({ pool: 'forks' });
    expect(notedSerial()?.setting).toBe('fileParallelism: false, maxWorkers: 1');
    expect(liftVitestSerial({ fileParallelism: true }, {}, argv(), {})).toEqual({ fileParallelism: true });
    liftVitestSerial({}, {}, argv('run', '--no-file-parallelism'), {});
    expect(notedSerial()?.kept).toBe('the command line');
    liftVitestSerial({ maxWorkers: 1 }, {}, argv('run'), { VITEST_MAX_WORKERS: '1' });
    expect(notedSerial()).toMatchObject({ setting: 'VITEST_MAX_WORKERS=1', lifted: false });
  });

  test('a keepSerial found only in the config file, after the lift, stops the run with the fix', () => {
    liftJestSerial({ maxWorkers: 1 }, {}, argv(), {});
    expect(() => checkLift({ keepSerial: true }, {})).toThrow(
      /dropped maxWorkers: 1 .*\(keepSerial: true\).*\n?.*withFastTestDb's options/s,
    );
    expect(() => checkLift({}, {})).not.toThrow();
  });

  test('the status line: how many workers, and what became of the setting', () => {
    expect(workersPhrase(1, undefined)).toBe('1 worker');
    expect(workersPhrase(7, undefined)).toBe('up to 7 workers');
    expect(workersPhrase(7, { setting: 'maxWorkers: 1', lifted: true })).toMatch(
      /^up to 7 workers, the runner's default on \d+ CPUs \(maxWorkers: 1 dropped/,
    );
    expect(workersPhrase(1, { setting: 'maxWorkers: 1', lifted: false, kept: 'keepSerial: true' })).toBe(
      '1 worker (maxWorkers: 1, kept: keepSerial: true)',
    );
  });
});
