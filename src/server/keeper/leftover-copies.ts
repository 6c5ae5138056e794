/**
 * What a killed save or copy leaves on disk, and when it may go (`clean` removes, `doctor` reports):
 * - `warm-save-<keeper pid>` in the servers root: a stopped server's data directory moved aside
 *   (tens of MB of memory on tmpfs), or with `-initdb` initdb's output copied beside a starting
 *   server, on its way to the cache; it goes once neither its keeper nor the process copying it runs;
 * - `<name>.partial-<pid>`: a copy being written (a warm or initdb copy in the cache dir, a binaries
 *   copy in the servers root), or `<name>.old-<pid>` one renamed aside to be removed; it goes once
 *   that process is gone;
 * - `bin-postgres-<major>-<key>` in the servers root: the binaries (~60 MB) copied for the server's
 *   account; a new install makes another and nothing removed the old one; it goes once no server
 *   uses it and no start is choosing one;
 * - `initdb-postgres-<major>-<key>` in the servers root: initdb's output (~31 MB, memory on tmpfs)
 *   that every project's start copies; another install or locale makes another. Nothing holds it:
 *   a start copying it as it is renamed aside notices and runs initdb (compact-copy.ts). It goes
 *   with `clean` once unused for --older-than, like a binaries copy; the next start makes it again.
 *
 * Where. The servers root is the user's, shared by every project, and none of these names says a
 * project: a dead writer's copy is of use to nobody, and a binaries copy is remade by the next start
 * that needs it (~0.1-0.3 s), so all of them are looked at, whatever the project. The cache dir is
 * the project's: only this project's (cacheDir, else its node_modules/.cache/fast-test-db).
 * Nothing is a candidate unless its name matches what is written in that very place (copy-names.ts).
 */
import { lstatSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, type ResolvedOptions } from '../../options/resolve.js';
import {
  BINARIES_COPY_NAME,
  BINARIES_PARTIAL_NAME,
  CACHE_PARTIAL_NAME,
  INITDB_COPY_NAME,
  INITDB_PARTIAL_NAME,
  partialPath,
  WARM_SAVE_NAME,
} from '../os/copy-names.js';
import { keeperFiles, type KeeperPlan } from './files.js';
import { listDir, readJson } from '../os/shared-files.js';
import { pidAlive } from '../os/lock.js';
import { assertPrivate } from '../os/private-dir.js';
import { canReadCommandLines, processesNaming } from '../os/processes.js';
import { listOwnedServers, type OwnedServerEntry } from './server-state.js';
import { type RootSettings, serversRoot } from './dirs.js';
import { retireCopy, treeBytes } from '../os/warm-cache.js';

export type LeftoverKind = 'warm-save' | 'partial' | 'binaries' | 'initdb';

export interface LeftoverCopy {
  path: string;
  kind: LeftoverKind;
  bytes: number;
  /** Since its last change; for a binaries or initdb copy, since a start last used it (the start touches it). */
  ageMs: number;
  /** The pid its name carries: the writer's or remover's (partial), the keeper's (warm-save). */
  pid?: number;
  /** Why it must stay: its writer still runs, a server uses it. Undefined when nothing holds it. */
  heldBy?: string;
}

/**
 * Where /proc is missing the process copying a staged data directory cannot be seen once its keeper
 * has exited: such a directory is left alone this long (a save takes seconds).
 */
const UNSEEN_SAVER_MS = 10 * 60_000;

type Found = Omit<LeftoverCopy, 'bytes' | 'heldBy'>;

/** Where leftovers are looked for, as the entry resolved it: the servers root, and the project's cache dir (from its directory). */
export interface CopiesSettings extends RootSettings {
  readonly resolved: Pick<ResolvedOptions, 'dataRoot' | 'cacheDir'>;
  readonly cwd: string;
}

/** Every leftover copy in the servers root and this project's cache dir, held or not. */
export function leftoverCopies(settings: CopiesSettings): LeftoverCopy[] {
  const servers = serversOnce(settings);
  return candidates(settings, true).map((c) => ({ ...c, bytes: treeBytes(c.path), heldBy: heldBy(c, servers) }));
}

/**
 * Run by each cold start: what a dead writer of ours left (a killed saver's staged data directory on
 * tmpfs, which is memory, and its partial copy in the cache or the servers root) goes now rather
 * than at the next `clean`. Binaries and initdb copies stay for `clean`: they are of use, and
 * deciding about a binaries copy needs every server's state.
 */
export function removeDeadWritersCopies(settings: CopiesSettings): void {
  const none = () => [];
  for (const c of candidates(settings, false)) if (!heldBy(c, none)) rmSync(c.path, { recursive: true, force: true });
}

/** `withCopies`: the binaries and initdb copies too, which are of use until `clean` says otherwise. */
function candidates(settings: CopiesSettings, withCopies: boolean): Found[] {
  const found: Found[] = [];
  assertPrivate(serversRoot(settings)); // another user's folder under our name: nothing in it is ours
  const look = (dir: string, kinds: Array<[RegExp, LeftoverKind]>) => {
    for (const name of entries(dir)) {
      for (const [re, kind] of kinds) {
        const m = re.exec(name);
        if (!m) continue;
        const path = join(dir, name);
        // Ours are directories; a file or a symlink under such a name is not something we wrote.
        const st = lstatSync(path, { throwIfNoEntry: false });
        // The name's pid (the writer's, or the keeper's) is what the pattern captured.
        if (st?.isDirectory()) found.push({ path, kind, ageMs: Date.now() - st.mtimeMs, pid: m[1] ? Number(m[1]) : undefined });
        break;
      }
    }
  };
  const copies: Array<[RegExp, LeftoverKind]> = [
    [BINARIES_COPY_NAME, 'binaries'],
    [INITDB_COPY_NAME, 'initdb'],
  ];
  look(serversRoot(settings), [
    [WARM_SAVE_NAME, 'warm-save'],
    [BINARIES_PARTIAL_NAME, 'partial'],
    [INITDB_PARTIAL_NAME, 'partial'],
    ...(withCopies ? copies : []),
  ]);
  look(cacheRoot(settings), [[CACHE_PARTIAL_NAME, 'partial']]);
  return found;
}

/**
 * Removes one leftover copy unless something holds it now: it is looked at again first, as a writer or
 * a start may have begun since it was listed. Returns why it stayed, or undefined once it is gone.
 */
export function removeLeftoverCopy(copy: LeftoverCopy, settings: RootSettings): string | undefined {
  const held = heldBy(copy, serversOnce(settings));
  if (held) return held;
  if (copy.kind === 'initdb') {
    // Renamed aside, then removed: a start copying it now sees it go and runs initdb instead.
    retireCopy(copy.path);
    return undefined;
  }
  if (copy.kind !== 'binaries') {
    rmSync(copy.path, { recursive: true, force: true });
    return undefined;
  }
  // A start takes the copy that exists at its path (embedded-postgres.ts reachableBinaries). Moved
  // aside first, a start that looks from now on makes a fresh one; one that chose this copy just
  // before is being set up, which the second look sees: then it goes back. The aside name is a
  // partial of this process, so a `clean` killed here leaves something the next one removes.
  const aside = partialPath(copy.path, process.pid);
  try {
    renameSync(copy.path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // removed by another clean
    throw e;
  }
  const now = heldBy(copy, serversOnce(settings));
  if (now) {
    try {
      renameSync(aside, copy.path);
    } catch {
      rmSync(aside, { recursive: true, force: true }); // a start made a new copy there meanwhile: the same binaries
    }
    return now;
  }
  rmSync(aside, { recursive: true, force: true });
  return undefined;
}

/** What a leftover copy is, in the words `clean` and `doctor` print. */
export function leftoverLabel(kind: LeftoverKind): string {
  const labels: Record<LeftoverKind, string> = {
    'warm-save': 'staged warm copy',
    partial: 'partial copy',
    binaries: 'binaries copy',
    initdb: 'initdb copy',
  };
  return labels[kind];
}

function entries(dir: string): string[] {
  try {
    return listDir(dir).sort();
  } catch {
    return []; // unreadable: nothing of ours to look at there
  }
}

/** The registry's view of every server of this user, read once per look and only when a binaries copy asks. */
function serversOnce(settings: RootSettings): () => OwnedServerEntry[] {
  let servers: OwnedServerEntry[] | undefined;
  return () => (servers ??= listOwnedServers(settings, { all: true }));
}

function heldBy(copy: Found, servers: () => OwnedServerEntry[]): string | undefined {
  const { path, kind, pid } = copy;
  if (kind === 'partial') {
    // A recycled pid keeps it longer, never shorter: the safe direction.
    return pidAlive(pid) ? `process ${pid} is still writing it` : undefined;
  }
  if (kind === 'initdb') return undefined;
  if (kind === 'warm-save') {
    // Its keeper stages it and spawns the process that copies it: look at the one, then the other.
    if (pidAlive(pid)) return `its keeper ${pid} still runs`;
    const savers = processesNaming(path);
    if (savers.length > 0) return `process ${savers.join(', ')} is still copying it to the cache`;
    if (!canReadCommandLines && copy.ageMs < UNSEEN_SAVER_MS) return 'the process copying it may still run (no /proc to tell)';
    return undefined;
  }
  const users = processesNaming(path);
  if (users.length > 0) return `process ${users.join(', ')} runs from it`;
  for (const server of servers()) {
    if (server.state === 'stopped') continue;
    // Its plan may not be written yet, and the start may be choosing its binaries right now.
    if (server.state === 'starting') return `a server is being started in ${server.dir}`;
    const plan = readJson<KeeperPlan>(keeperFiles(server.dir).plan);
    const commands = plan ? [plan.server, ...plan.init].map((c) => c.command) : [];
    if (commands.some((c) => c.startsWith(`${path}/`))) return `the server in ${server.dir} is run from it (${server.summary})`;
  }
  return undefined;
}
