/**
 * The containers a killed process left: every container of ours carries its owner (host, pid and
 * the pid's start time, as pids are recycled) and its project in labels, so that the next start,
 * `clean` and `doctor` find those whose owner has ended without testcontainers' reaper (Ryuk),
 * whose image many CI machines cannot pull.
 */
import { hostname } from 'node:os';
import { messageOf } from '../../errors.js';
import type { EngineName } from '../../types.js';
import { pidAlive } from '../os/lock.js';
import { statFields } from '../os/proc-stat.js';
import { loadTestcontainers } from './container-peer.js';

/** The label that marks a container as ours; its value is the engine. */
export const OURS_LABEL = 'fast-test-db.engine';
const OWNER_HOST = 'fast-test-db.owner-host';
const OWNER_PID = 'fast-test-db.owner-pid';
const OWNER_START = 'fast-test-db.owner-start';
/** The project (working directory) it was started for: a start and `clean` look at their project's only, as for embedded servers. */
const PROJECT = 'fast-test-db.project';

/** When `pid` started (clock ticks since boot): a recycled pid has another. Undefined without /proc. */
function startOf(pid: number | 'self'): string | undefined {
  return statFields(pid)?.[19];
}

/** The labels a container started by this process for `project` carries. */
export function ownerLabels(engine: EngineName, project: string): Record<string, string> {
  const labels: Record<string, string> = {
    [OURS_LABEL]: engine,
    [OWNER_HOST]: hostname(),
    [OWNER_PID]: String(process.pid),
    [PROJECT]: project,
  };
  const start = startOf('self');
  if (start) labels[OWNER_START] = start;
  return labels;
}

/**
 * Whether the process that started a container has ended: `undefined` when that cannot be told
 * from here (another machine's pid, or a container started elsewhere), which leaves it alone.
 */
export function ownerEnded(labels: Record<string, string>): boolean | undefined {
  const pid = Number(labels[OWNER_PID]);
  if (labels[OWNER_HOST] !== hostname() || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (!pidAlive(pid)) return true;
  const start = labels[OWNER_START];
  return start !== undefined && startOf(pid) !== undefined && startOf(pid) !== start;
}

/** A container of ours, as the engine lists it. */
export interface OurContainer {
  id: string;
  image: string;
  engine: string;
  /** `pid@host` of the process that started it. */
  owner: string;
  project: string;
  ended: boolean | undefined;
  ageMs: number;
}

async function listOurs(tc: any): Promise<Array<{ Id: string; Image: string; Created: number; Labels: Record<string, string> }>> {
  const client = await tc.getContainerRuntimeClient();
  return client.container.dockerode.listContainers({ all: true, filters: { label: [OURS_LABEL] } });
}

/**
 * The containers of ours on the Docker engine testcontainers finds, of `project` only when given;
 * none when testcontainers cannot be loaded or no engine answers.
 */
export async function ourContainers(project?: string, now = Date.now()): Promise<OurContainer[]> {
  let tc: any;
  try {
    tc = await loadTestcontainers();
    const listed = (await listOurs(tc)).filter((c) => project === undefined || c.Labels[PROJECT] === project);
    return listed.map((c) => ({
      id: c.Id.slice(0, 12),
      image: c.Image,
      engine: c.Labels[OURS_LABEL] ?? '?',
      owner: `${c.Labels[OWNER_PID] ?? '?'}@${c.Labels[OWNER_HOST] ?? '?'}`,
      project: c.Labels[PROJECT] ?? '?',
      ended: ownerEnded(c.Labels),
      ageMs: now - c.Created * 1000,
    }));
  } catch {
    return [];
  }
}

/** Removes the containers (of `project`, else every project's) whose owner has ended, or with dryRun only says which. */
export async function removeLeftContainers(
  opts: { dryRun?: boolean; project?: string } = {},
): Promise<Array<OurContainer & { removed: boolean; error?: string }>> {
  const left = (await ourContainers(opts.project)).filter((c) => c.ended === true);
  if (opts.dryRun || left.length === 0) return left.map((c) => ({ ...c, removed: false }));
  const tc = await loadTestcontainers();
  const client = await tc.getContainerRuntimeClient();
  return Promise.all(
    left.map(async (c) => {
      try {
        await client.container.dockerode.getContainer(c.id).remove({ force: true, v: true });
        return { ...c, removed: true };
      } catch (e) {
        return { ...c, removed: false, error: messageOf(e) };
      }
    }),
  );
}

/**
 * `clean`'s part: removes our containers whose owner ended, as the servers list of its report has
 * them. Age plays no part: a container whose owner ended is reachable by nobody (only its owner
 * knew it), unlike an orphaned embedded server, which a later run may join.
 */
export async function cleanLeftContainers(opts: {
  dryRun?: boolean;
  /** This project's (its working directory); undefined: every project's. */
  project?: string;
}): Promise<Array<{ dir: string; engine: string; action: 'removed' | 'would remove' | 'kept'; reason: string }>> {
  return (await removeLeftContainers(opts)).map((c) => ({
    dir: `container ${c.id} (${c.image})`,
    engine: c.engine,
    action: opts.dryRun ? 'would remove' : c.removed ? 'removed' : 'kept',
    reason: c.error ? `could not remove it: ${c.error}` : `its owner, process ${c.owner}, has ended`,
  }));
}

/** `doctor`'s part: our containers (of `project`, else every project's), those whose owner ended first (a warning, with the `clean` that removes them). */
export async function containerChecks(
  project: string | undefined,
): Promise<Array<{ id: string; status: 'info' | 'warn'; title: string; detail: string; fix?: string }>> {
  const ours = await ourContainers(project);
  const line = (c: OurContainer) => `${c.id} ${c.image}, started by process ${c.owner}`;
  const left = ours.filter((c) => c.ended === true);
  const live = ours.filter((c) => c.ended !== true);
  return [
    ...(left.length
      ? [
          {
            id: 'left-containers',
            status: 'warn' as const,
            title: `${left.length} container(s) of ours whose process has ended (killed, with Ryuk off)`,
            detail: left.map(line).join('\n    '),
            fix: `fast-test-db clean${project === undefined ? ' --all' : ''}   (removes them; the project's next container start does too)`,
          },
        ]
      : []),
    ...(live.length
      ? [
          {
            id: 'containers',
            status: 'info' as const,
            title: `${live.length} container(s) of ours in use, or started on another machine`,
            detail: live.map(line).join('\n    '),
          },
        ]
      : []),
  ];
}
