/** Which worker and which run a process belongs to, from what its runner set. */
import { describe, expect, it } from 'vitest';
import { detectRun, detectWorker } from '../../src/options/workers.js';

describe('workers and runs', () => {
  it('take the first runner variable that is set', () => {
    expect(detectWorker({ VITEST_POOL_ID: '3', TEST_TOKEN: '9' })).toEqual({ id: '3', source: 'VITEST_POOL_ID' });
    expect(detectWorker({ JEST_WORKER_ID: '2' }).id).toBe('2');
    expect(detectWorker({}).source).toBe('pid');
  });
  it('derive a run id from CI', () => {
    expect(detectRun({ GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '2' })).toBe('gh77a2');
    expect(detectRun({ FAST_TEST_DB_RUN_ID: 'mine', GITHUB_RUN_ID: '1' })).toBe('mine');
    expect(detectRun({})).toBeUndefined();
  });
});
