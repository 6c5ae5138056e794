/**
 * The notes a run's workers leave in the run's directory (private to the user, emptied by a watch
 * re-run), read by the worker's later test files:
 * - a clone note per database: this run already cloned it, so a per-worker database needs no work;
 * - a later-file note per worker: what its first file exported, so that a later file exports the
 *   same without loading the library.
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

interface LaterFileNote {
  target: Pick<WorkerTarget, 'name' | 'url' | 'connection'>;
  envVars: Handoff['envVars'];
  appEnv: Handoff['appEnv'];
}

const laterNotePath = (dir: string, worker: string) => join(dir, `worker-${encodeURIComponent(worker)}.json`);

/** After the first file of `worker` made its database ready: what the worker's later files export. */
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
 * Exports what the first file of `worker` noted and returns true; false, having done nothing, when
 * this file takes the whole path. `h` is the handoff as given, pending or settled: the same dir.
 */
export function exportForLaterFile(h: Pick<Handoff, 'dir'>, worker: string, env: NodeJS.ProcessEnv): boolean {
  let note: LaterFileNote;
  try {
    note = JSON.parse(readFileSync(laterNotePath(h.dir, worker), 'utf8')) as LaterFileNote;
  } catch {
    return false;
  }
  if (!alreadyCloned(h, note.target.name)) return false;
  exportUrl(note, note.target, env);
  return true;
}
