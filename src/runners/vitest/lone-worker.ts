/**
 * A Vitest run with one worker needs no setup file. Vitest loads a setup file through its module
 * runner in every test file, and even an empty one cost about 13 ms a file here (Vitest's "setup"
 * figure, 5 files, forks, 2 cores, timed by hand; the bench's import-heavy shape read 1.4 s of
 * "setup" before this and 0 ms after, docs/benchmarks.md): 1.3 s of a 100-file suite, where our setup file only exports
 * the URL its later-file note holds (notes.ts). With one worker that URL is the same for every
 * file and known in the main process once the clone ahead ends; it goes into the project's `env`,
 * which Vitest gives every worker it starts (and sets in it again before each file), and our setup
 * file leaves the project's list, so Vitest loads nothing of ours in the workers.
 *
 * Only where nothing else needs the setup file: one project, run mode (a watch re-run clones
 * again), isolation per worker without CPU pairing (no hooks), a server already up (waiting for
 * one that starts here would put its start before the workers', instead of beside it), a clone
 * ahead that was made, and a worker that will be named "1" (no worker id of the user's outranks
 * Vitest's pool id). Anything else keeps the setup file, which does what it always did; so does
 * a Vitest whose resolved config does not list our setup file as we name it.
 */
import type { TestProject } from 'vitest/node';
import { logger } from '../../util/log.js';
import { workerIdGiven } from '../../options/workers.js';
import { exportUrl } from '../shared/export-url.js';
import { workerTarget } from '../shared/handoff.js';
import { alreadyCloned } from '../shared/notes.js';
import type { RunHandle } from '../shared/global.js';

const log = logger('runner');

/**
 * Takes our setup file out of `project`'s run when `workers` is 1 and nothing above needs it;
 * returns what puts the project's config back, or undefined when the setup file stays.
 */
export async function withoutSetupFile(
  project: TestProject,
  run: RunHandle,
  workers: number,
  setupFile: string,
): Promise<(() => void) | undefined> {
  const { config } = project;
  const h = run.handoff;
  // Vitest lists resolved paths with forward slashes, on Windows too.
  const slashed = (p: string) => p.replaceAll('\\', '/');
  const ours = config.setupFiles.findIndex((f) => slashed(f) === slashed(setupFile));
  if (workers !== 1 || ours < 0 || config.watch || project.vitest.projects.length !== 1) return undefined;
  if (h.pending || h.isolation !== 'worker' || h.cpus) return undefined;
  if (workerIdGiven('VITEST_POOL_ID', '1', run.env) !== '1') return undefined;
  const target = workerTarget(h, '1');
  await run.clonedAhead();
  if (!alreadyCloned(h, target.name)) return undefined;

  const env = (config.env ??= {}) as Record<string, string | undefined>;
  const exported: NodeJS.ProcessEnv = {};
  exportUrl(h, target, exported);
  // What the project's env held under those names, put back at the end (undefined: it had none).
  const before = Object.keys(exported).map((k) => [k, env[k]] as const);
  Object.assign(env, exported);
  const [listed] = config.setupFiles.splice(ours, 1);
  log('one worker: its URL goes into the project env, and the setup file is not loaded (%s)', target.name);
  return () => {
    if (!config.setupFiles.includes(listed!)) config.setupFiles.splice(ours, 0, listed!);
    for (const [k, v] of before) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
  };
}
