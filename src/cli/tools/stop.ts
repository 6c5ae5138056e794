/**
 * `fast-test-db stop`: stops the servers this project started (or every one of ours with `all`),
 * after saying who still uses them. Only directories of the registry whose keeper is verified
 * through /proc are touched: a server we did not start is never in that list.
 */
import { withClient } from '../../engines/connect.js';
import { engineFor } from '../../engines/index.js';
import type { OpenSession } from '../../engines/marker.js';
import { messageOf } from '../../errors.js';
import { stopOwnedServer } from '../../server/registry.js';
import { reapServer } from '../../server/keeper/reap.js';
import { contextOf } from '../../options/context.js';
import { listOwnedServers, serverState, type OwnedServerEntry } from '../../server/keeper/server-state.js';
import { removeEmptyDir } from '../../server/keeper/dirs.js';
import { argsOf, running, signal } from '../../server/os/processes.js';
import { sleep } from '../../util/sleep.js';
import type { TestDatabaseOptions } from '../../types.js';

/** A process holding a lease on the server: a test run, a `url`'s shell no longer (it exits), a `start`. */
export interface LeaseHolder {
  pid: number;
  command: string;
  /** A `fast-test-db start` in the foreground: asked to stop the way Ctrl-C does, so it saves and cleans up itself. */
  foregroundStart: boolean;
}

export interface StopTarget {
  dir: string;
  engine: OwnedServerEntry['engine'];
  port?: number;
  project?: string;
  state: OwnedServerEntry['state'];
  sessions: OpenSession[];
  holders: LeaseHolder[];
  /** Why the sessions could not be read, when they could not. */
  sessionsError?: string;
  action: 'stopped' | 'removed' | 'refused' | 'failed' | 'would stop';
}

/** A `start` of our CLI (the bin or its source), not any process whose arguments say "start". */
function isForegroundStart(args: string[]): boolean {
  const at = args.findIndex((a) => /(^|[\\/])fast-test-db$|[\\/]cli[\\/]index\.[cm]?[jt]s$/.test(a));
  return at >= 0 && args[at + 1] === 'start';
}

function holdersOf(entry: OwnedServerEntry): LeaseHolder[] {
  return entry.leases
    .filter((pid) => pid !== process.pid)
    .map((pid) => {
      const args = argsOf(pid) ?? [];
      return { pid, command: args.filter(Boolean).join(' ').slice(0, 200), foregroundStart: isForegroundStart(args) };
    });
}

async function sessionsOf(entry: OwnedServerEntry): Promise<{ sessions: OpenSession[]; error?: string }> {
  if (!entry.info) return { sessions: [] };
  try {
    const { connector, inspector } = await engineFor(entry.info.engine).load();
    return { sessions: await withClient(connector, entry.info, (admin) => inspector.sessions(admin)) };
  } catch (e) {
    return { sessions: [], error: messageOf(e).split('\n')[0] };
  }
}

/** Who uses each server, without changing anything: what `stop` refuses on, or cuts off with `force`. */
export async function stopTargets(options: TestDatabaseOptions, all: boolean): Promise<StopTarget[]> {
  // The one context of this look: the servers root the options and the env say.
  const entries = listOwnedServers(contextOf(options, { check: false }), { all }).filter((e) => e.state !== 'stopped');
  return Promise.all(
    entries.map(async (e) => {
      const live = e.state === 'running';
      const { sessions, error } = live ? await sessionsOf(e) : { sessions: [] };
      return {
        dir: e.dir,
        engine: e.engine,
        port: e.info?.port,
        project: e.project,
        state: e.state,
        sessions,
        holders: live ? holdersOf(e) : [],
        sessionsError: error,
        action: 'would stop' as const,
      };
    }),
  );
}

/** Clients a stop would cut off. A foreground `start` is not one: it is asked to stop as Ctrl-C would. */
export function inUse(t: StopTarget): boolean {
  return t.sessions.length > 0 || t.holders.some((h) => !h.foregroundStart);
}

async function exitedWithin(pids: number[], ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some((p) => running(p)) && Date.now() < deadline) await sleep(50);
  return !pids.some((p) => running(p));
}

/** Stops one server: its foreground `start` first (it drops its test databases and saves --data-cache), then the keeper. */
export async function stopTarget(t: StopTarget): Promise<StopTarget> {
  if (t.state === 'orphaned') {
    await reapServer(t.dir);
    return { ...t, action: 'removed' };
  }
  const starts = t.holders.filter((h) => h.foregroundStart).map((h) => h.pid);
  if (starts.length) {
    signal(starts, 'SIGINT');
    await exitedWithin(starts, 60_000);
  }
  // Already gone when its `start` stopped it; else its keeper stops it, whatever leases remain.
  await stopOwnedServer(t.dir);
  const stopped = !['starting', 'running', 'stopping'].includes(serverState(t.dir).state);
  removeEmptyDir(t.dir);
  return { ...t, action: stopped ? 'stopped' : 'failed' };
}
