/**
 * Vitest setup file of the time/heap reporter: instruments the database drivers and records, per
 * test file, the time spent waiting on queries and the heap after the file. Add it to
 * `setupFiles` next to the reporter; without the reporter it does nothing.
 */
import { afterAll, expect } from 'vitest';
import { instrumentDrivers, timingSince, timingSnapshot } from './query-timing.js';
import { REPORT_DIR_ENV, writeRecord } from './records.js';

if (process.env[REPORT_DIR_ENV]) {
  instrumentDrivers();
  const startedAt = Date.now();
  const start = timingSnapshot();
  // Vitest runs after-hooks in reverse order, so this one, registered first, runs after the file's own.
  afterAll(() => {
    const t = timingSince(start);
    const file = expect.getState().testPath;
    const gc = typeof globalThis.gc === 'function';
    if (gc) globalThis.gc!();
    if (file) writeRecord({ file, pid: process.pid, startedAt, endedAt: Date.now(), queries: t.queries, dbMs: t.busyMs, heapUsed: process.memoryUsage().heapUsed, gc });
  });
}
