/**
 * Jest setup file (setupFilesAfterEnv) of the time/heap reporter: instruments the database drivers
 * through the sandbox's own require (Jest gives each test file its own module registry) and
 * records, per test file, the time spent waiting on queries and the heap after the file.
 * Jest runs afterAll hooks in the order they were declared, so queries made in the test file's
 * own afterAll are not counted.
 */
import { instrumentDrivers, timingSince, timingSnapshot } from './query-timing.js';
import { REPORT_DIR_ENV, writeRecord } from './records.js';

declare const require: ((id: string) => unknown) | undefined;
declare const expect: { getState(): { testPath?: string } };
declare function afterAll(fn: () => void): void;

if (process.env[REPORT_DIR_ENV]) {
  instrumentDrivers(typeof require === 'function' ? require : undefined);
  const startedAt = Date.now();
  const start = timingSnapshot();
  afterAll(() => {
    const t = timingSince(start);
    const file = expect.getState().testPath;
    const gc = typeof globalThis.gc === 'function';
    if (gc) globalThis.gc!();
    if (file) writeRecord({ file, pid: process.pid, startedAt, endedAt: Date.now(), queries: t.queries, dbMs: t.busyMs, heapUsed: process.memoryUsage().heapUsed, gc });
  });
}
