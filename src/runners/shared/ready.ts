/**
 * A handoff given out while the server is still starting. Jest and Vitest spend about a second
 * starting workers and transforming test files; the global setup hands the workers the server's
 * address (its port is chosen before it starts, so every URL is known) and goes on starting the
 * server and checking the template meanwhile. It then writes one file: the finished handoff, or the
 * error. A worker waits for that file before its first clone; the app may read its URL long before.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { FastTestDbError, messageOf, type ErrorCode } from '../../errors.js';
import { readJson, writeJson } from '../../server/os/shared-files.js';
import { pidAlive } from '../../server/os/lock.js';
import { handoffWaits } from '../../state.js';
import { sleep } from '../../util/sleep.js';
import type { Handoff } from './handoff.js';

export type ReadyRecord = { handoff: Handoff } | { error: { code: ErrorCode; what: string; fix?: string } };

/** Next to the run's directory, not in it: a watch re-run empties that directory. */
export const readyFileOf = (dir: string) => `${dir}.ready.json`;

export function writeReady(file: string, record: ReadyRecord): void {
  writeJson(file, record);
}

export function errorRecord(e: unknown): ReadyRecord {
  if (e instanceof FastTestDbError) {
    const fix = e.fix;
    const what = fix ? e.message.slice(0, e.message.length - `\n  fix: ${fix}`.length) : e.message;
    return { error: { code: e.code, what, fix } };
  }
  return { error: { code: 'SERVER_START_FAILED', what: `the run's server or template could not be prepared: ${messageOf(e)}` } };
}

/** Set by the first worker that reports the failure: the others say less. */
const reportedFileOf = (file: string) => `${file}.reported`;

/** Whether some worker already showed the run's failure in full (the global teardown shows it otherwise). */
export function failureReported(file: string): boolean {
  return existsSync(reportedFileOf(file));
}

/** Marks the failure as shown in full (the global setup showed it): workers that still see it say one line. */
export function markReported(file: string): void {
  writeFileSync(reportedFileOf(file), String(process.pid));
}

/**
 * The process that marked the failure as shown, when it is `owner` and still alive: the runner's
 * main process is stopping the run (stop-run.ts) and ends in a moment, taking the workers with it.
 */
function ownerStopping(file: string, owner: number | undefined): boolean {
  if (owner === undefined) return false;
  return readJson<number>(reportedFileOf(file)) === owner && pidAlive(owner);
}

/** Removes the ready file and its failure mark: a run starts, or ends, with neither. */
export function clearReady(file: string): void {
  for (const f of [file, reportedFileOf(file)]) rmSync(f, { force: true });
}

function failure(file: string, error: { code: ErrorCode; what: string; fix?: string }): FastTestDbError {
  let e: FastTestDbError;
  try {
    writeFileSync(reportedFileOf(file), String(process.pid), { flag: 'wx' });
    e = new FastTestDbError(error.code, error.what, error.fix);
  } catch {
    // Another worker showed the whole error: one line here, so the log is not N copies of it.
    const first = error.what.split('\n')[0];
    e = new FastTestDbError(
      error.code,
      `the run's database could not be prepared (${first}); the full error is shown with the first test file that needed it`,
      error.fix,
    );
  }
  // The failure happened in the global setup's process: a stack pointing here would only mislead.
  e.stack = `${e.name}: ${e.message}`;
  return e;
}

const POLL_MS = 10;
/**
 * How long a worker waits, silent, for a main process that is stopping the run: it stops the
 * server first, which on a loaded machine takes seconds. A worker that failed its file meanwhile
 * would print the error again, once per file, after the one the main process printed.
 */
const STOPPING_WAIT_MS = 30_000;

/**
 * The finished handoff. For a pending one, waits until the global setup wrote its outcome; a
 * failure there becomes its own FastTestDbError here, as does the global setup's process ending.
 * Every caller in a process gets the same wait: whoever holds the pending handoff (the worker's
 * env still has it) settles it here, and passes the finished one on (context.ts withHandoff).
 */
export function settled(h: Handoff): Promise<Handoff> {
  const file = h.pending;
  if (!file) return Promise.resolve(h);
  let wait = handoffWaits.get(file);
  if (!wait) {
    wait = (async () => {
      let stoppingSince: number | undefined;
      for (;;) {
        const record = readJson<ReadyRecord>(file);
        if (record && 'error' in record) {
          if (!ownerStopping(file, h.owner)) throw failure(file, record.error);
          stoppingSince ??= Date.now();
          if (Date.now() - stoppingSince > STOPPING_WAIT_MS) throw failure(file, record.error);
          await sleep(POLL_MS);
          continue;
        }
        if (record) return record.handoff;
        if (h.owner !== undefined && !pidAlive(h.owner))
          throw new FastTestDbError(
            'SERVER_START_FAILED',
            `the runner's main process (${h.owner}) ended before the run's database was ready`,
            'run the tests again; DEBUG=fast-test-db:* shows each step',
          );
        await sleep(POLL_MS);
      }
    })();
    // A failure is shown by whoever awaits it; a second await gets the same error.
    wait.catch(() => undefined);
    handoffWaits.set(file, wait);
  }
  return wait;
}
