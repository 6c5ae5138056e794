/**
 * A run whose server or template failed after the workers were handed the server early (ready.ts)
 * ends here, in the runner's main process: the error is shown once, in full, and the run stops.
 * Left to the workers, every test file would load, transform and fail on the same error (a large
 * suite printed it for each of its 1,697 tests, over two minutes), and nothing in Jest's or
 * Vitest's global setup can end a run that it has already let start, except ending the process.
 */
import { FastTestDbError, messageOf } from '../../errors.js';
import { markReported, writeReady, errorRecord } from './ready.js';

/** The error as the user reads it: code, what happened, and the fix when there is one. */
export function failureText(e: unknown): string {
  if (e instanceof FastTestDbError) return `fast-test-db: the run stops (${e.code}): ${e.message}`;
  return `fast-test-db: the run stops: the run's server or template could not be prepared: ${messageOf(e)}`;
}

/**
 * Tells the workers (one line each, for any that looks before the process ends), shows the error,
 * runs `cleanup` (the server this run started), and ends the process with exit code 1.
 */
export async function stopRun(readyFile: string, e: unknown, cleanup: () => Promise<void>): Promise<never> {
  markReported(readyFile);
  writeReady(readyFile, errorRecord(e));
  process.stderr.write(`\n${failureText(e)}\n`);
  await cleanup().catch(() => undefined);
  process.exit(1);
}
