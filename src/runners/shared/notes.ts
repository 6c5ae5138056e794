/**
 * The notes a run's workers leave in the run's directory (private to the user, emptied by a watch
 * re-run), read by the worker's later test files:
 * - a clone note per database: this run already cloned it, so a per-worker database needs no work;
 * - a later-file note per worker: what its first file exported, so that a later file exports the
 *   same without loading the library;
 * - an ahead note per database the run's main process is cloning ahead (clone-ahead.ts), holding
 *   its pid: a worker that finds one waits for that clone instead of making its own.
 *
 * Why the second: Vitest runs each test file in a fresh process (forks) or context (threads), Jest
 * in a fresh module registry, and the whole worker path (options, engines, about 125 KB in 19
 * modules) cost 30-60 ms per test file under Vitest and 12-50 ms under Jest, which a suite of many
 * small files pays in full while its database needs nothing: with per-worker isolation it was
 * cloned by the worker's first file and is kept. Anything else takes the whole path: another
 * isolation, CPU pairing (its hooks), a database a test dropped (its clone note is gone), a watch
 * re-run, a note that cannot be read.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Handoff, WorkerTarget } from '../../types.js';
import { writeJson } from '../../server/os/shared-files.js';
import { pidAlive } from '../../server/os/lock.js';
import { sleep } from '../../util/sleep.js';
import { exportUrl } from './export-url.js';

const cloneNotePath = (dir: string, name: string) => join(dir, name);

/**
 * Notes that this run cloned `name`. node:test's standalone children share the run directory, and
 * each removes it on exit when it looks empty: it may vanish between one child creating it and
 * writing its note there. Create it again.
 */
export function noteClone(h: Pick<Handoff, 'dir'>, name: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      writeFileSync(cloneNotePath(h.dir, name), '');
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw e;
      mkdirSync(h.dir, { recursive: true });
    }
  }
}

/** True when this run already cloned `name` (so a per-worker database needs no work at all). */
export function alreadyCloned(h: Pick<Handoff, 'dir'>, name: string): boolean {
  return existsSync(cloneNotePath(h.dir, name));
}

/** After a test dropped `name` itself: the next file of this run clones it again. */
export function forgetClone(h: Pick<Handoff, 'dir'>, name: string): void {
  rmSync(cloneNotePath(h.dir, name), { force: true });
}

/**
 * How long a worker waits for its database: the global setup may hand out a server that is still
 * starting, and build the template meanwhile, or clone the database ahead. The hooks that wait are
 * registered with a longer timeout of their own, so that the user's hook timeout (Jest's 5 s) never
 * cuts this wait short, and a wait that does not end says what it waited for instead of pointing
 * into our bundle.
 */
export const WORKER_WAIT_MS = 10 * 60_000;

const aheadNotePath = (dir: string, name: string) => join(dir, `${name}.ahead`);

/** The main process starts cloning `name` for a worker that has not started yet. */
export function noteAhead(h: Pick<Handoff, 'dir'>, name: string): void {
  writeFileSync(aheadNotePath(h.dir, name), String(process.pid));
}

/** That clone ended, made or not (a clone note says which). */
export function endAhead(h: Pick<Handoff, 'dir'>, name: string): void {
  rmSync(aheadNotePath(h.dir, name), { force: true });
}

/** True while a live process is cloning `name` ahead (a killed main process leaves a note nobody holds). */
function aheadHeld(h: Pick<Handoff, 'dir'>, name: string): boolean {
  try {
    return pidAlive(Number(readFileSync(aheadNotePath(h.dir, name), 'utf8')));
  } catch {
    return false;
  }
}

const AHEAD_POLL_MS = 5;

/**
 * Waits while `name` is being cloned ahead (at most WORKER_WAIT_MS); true when the run has cloned
 * it by then, false when the caller must clone it itself (no clone ahead, or it failed).
 */
export async function awaitAhead(h: Pick<Handoff, 'dir'>, name: string): Promise<boolean> {
  const until = Date.now() + WORKER_WAIT_MS;
  while (aheadHeld(h, name) && Date.now() < until) await sleep(AHEAD_POLL_MS);
  return alreadyCloned(h, name);
}

interface LaterFileNote {
  target: Pick<WorkerTarget, 'name' | 'url' | 'connection'>;
  envVars: Handoff['envVars'];
  appEnv: Handoff['appEnv'];
}

const laterNotePath = (dir: string, worker: string) => join(dir, `worker-${encodeURIComponent(worker)}.json`);

/**
 * What the worker's later files export: written by its first file once its database is ready, or
 * by the main process before it clones that database ahead.
 */
export function noteLaterFiles(h: Handoff, worker: string, target: WorkerTarget): void {
  if (h.isolation !== 'worker' || h.cpus) return;
  const note: LaterFileNote = {
    target: { name: target.name, url: target.url, connection: target.connection },
    envVars: h.envVars,
    appEnv: h.appEnv,
  };
  writeJson(laterNotePath(h.dir, worker), note);
}

/**
 * How a later file found its worker's database: `false`, nothing done, the file takes the whole
 * path; `true`, exported and ready; a promise, exported while the main process clones it ahead,
 * which resolves true once it is cloned, or false if the file must take the whole path after all.
 */
export type LaterFile = boolean | Promise<boolean>;

/**
 * Exports what the first file of `worker` (or the main process) noted, unless this file takes the
 * whole path. `h` is the handoff as given, pending or settled: the same dir.
 */
export function exportForLaterFile(h: Pick<Handoff, 'dir'>, worker: string, env: NodeJS.ProcessEnv): LaterFile {
  let note: LaterFileNote;
  try {
    note = JSON.parse(readFileSync(laterNotePath(h.dir, worker), 'utf8')) as LaterFileNote;
  } catch {
    return false;
  }
  const { name } = note.target;
  const ready = alreadyCloned(h, name);
  if (!ready && !aheadHeld(h, name)) return false;
  exportUrl(note, note.target, env);
  return ready || awaitAhead(h, name);
}
