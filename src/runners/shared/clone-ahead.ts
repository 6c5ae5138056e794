/**
 * The workers' databases cloned in the runner's main process, in the background, while the runner
 * starts its workers and loads their first test files. Without it each worker's first file loaded
 * the whole worker path and a driver, logged in and cloned before its first test (the clone step
 * alone 88-134 ms in traced runs), on the critical path of a run whose every file runs on one
 * worker (a 2-core machine's default), where the main process, its driver loaded and the server
 * known, cloned in 35 ms and is otherwise waiting for the workers. With a database cloned ahead and its later-file note written, a
 * worker's first file takes the later files' path too (notes.ts): it exports the URL and waits, if
 * at all, for the clone to end.
 *
 * Which workers: the runner numbers them 1..N (Jest's JEST_WORKER_ID, Vitest's VITEST_POOL_ID,
 * the one the in-band run has too); a worker with an id of its own (FAST_TEST_DB_WORKER) finds no
 * note and clones as before. A clone made for a worker the runner does not start (fewer files than
 * workers) is dropped with the run's other databases.
 */
import { messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import { workerTarget, type Handoff } from './handoff.js';
import { endAhead, noteAhead, noteLaterFiles } from './notes.js';
import { cloneFresh } from './worker.js';

const log = logger('runner');

/** Past this many workers, the later ones clone their own: each clone ahead makes the last worker wait longer. */
const MAX_AHEAD = 16;

/**
 * Notes, for workers 1..`workers` of the run `h`, that their databases are being cloned ahead and
 * what their files export, and returns those databases' names. Done as soon as the handoff is
 * given out, pending or not (a run that starts its server hands it out before it answers): a
 * worker's first file that starts meanwhile exports its URL and waits for the clone, as it would
 * have waited for the server. Nothing for isolation per file, whose files each clone their own.
 */
export function planAhead(h: Handoff, workers: number | undefined): string[] {
  if (!workers || h.isolation === 'file') return [];
  const targets = Array.from({ length: Math.min(workers, MAX_AHEAD) }, (_, i) => workerTarget(h, String(i + 1)));
  // Every ahead note before its later-file note: a worker that reads the second finds the first.
  for (const t of targets) {
    noteAhead(h, t.name);
    noteLaterFiles(h, t.worker, t);
  }
  return targets.map((t) => t.name);
}

/**
 * Clones `names` (planAhead's) on the run's server, `h` the finished handoff, one after another
 * in worker order, and resolves when done; never rejects: a clone that fails is the worker's to
 * make, and to report.
 */
export async function cloneAhead(h: Handoff, names: string[]): Promise<void> {
  const started = performance.now();
  let i = 0;
  try {
    for (; i < names.length; i++) {
      await cloneFresh(h, names[i]!);
      endAhead(h, names[i]!);
    }
    if (names.length) log('cloned %d worker database(s) ahead in %d ms', names.length, Math.round(performance.now() - started));
  } catch (e) {
    log('could not clone %s ahead (its worker clones it): %s', names[i], messageOf(e));
    giveUpAhead(h, names.slice(i));
  }
}

/** The clones of `names` will not be made (the run failed first): their workers take the whole path. */
export function giveUpAhead(h: Pick<Handoff, 'dir'>, names: string[]): void {
  for (const name of names) endAhead(h, name);
}
