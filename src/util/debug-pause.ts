/**
 * Test-only stop points, so that crash tests can SIGKILL a process exactly at a step instead of
 * hoping a sleep lands there. With FAST_TEST_DB_TEST_PAUSE=<step>[,<step>...] a process reaching
 * that step appends `{"paused":step,"pid":…}` as one line to FAST_TEST_DB_TEST_PAUSE_FILE (stderr
 * when unset) and then waits to be killed. Unset (always, outside the crash tests), a stop point
 * costs one env lookup.
 */
import { appendFileSync } from 'node:fs';

export const PAUSE_ENV = 'FAST_TEST_DB_TEST_PAUSE';
export const PAUSE_FILE_ENV = 'FAST_TEST_DB_TEST_PAUSE_FILE';

export function pauseRequested(step: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const wanted = env[PAUSE_ENV];
  return Boolean(wanted) && wanted!.split(',').includes(step);
}

function announce(step: string): void {
  const line = JSON.stringify({ paused: step, pid: process.pid }) + '\n';
  const file = process.env[PAUSE_FILE_ENV];
  if (file) appendFileSync(file, line);
  else process.stderr.write(line);
}

/** Resolves at once unless `step` was asked for; then never resolves (the test kills the process). */
export function pausePoint(step: string): Promise<void> {
  if (!pauseRequested(step)) return Promise.resolve();
  announce(step);
  // A timer keeps the event loop (and so the process) alive while it waits to be killed.
  return new Promise(() => setInterval(() => undefined, 60_000));
}

/**
 * The same for synchronous code (the keeper's exit path): blocks the whole thread, timers and child
 * exits included, so nothing else of the process moves on until the test kills it.
 */
export function pauseHere(step: string): void {
  if (!pauseRequested(step)) return;
  announce(step);
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
