/**
 * A test-only stop point: with FAST_TEST_DB_TEST_PAUSE=<step>, the process that reaches `step`
 * writes the step's name to FAST_TEST_DB_TEST_PAUSE_FILE and then blocks for good, so that a
 * crash test can kill it (SIGKILL) at exactly that step instead of hoping a sleep hits it.
 * Unset (always, outside the crash tests), it costs one env lookup.
 */
import { appendFileSync } from 'node:fs';

export function debugPause(step: string): void {
  if (process.env.FAST_TEST_DB_TEST_PAUSE !== step) return;
  const file = process.env.FAST_TEST_DB_TEST_PAUSE_FILE;
  if (file) appendFileSync(file, `${step} ${process.pid}\n`);
  // Blocks the whole thread (timers, child exits, everything) until the test kills us.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
