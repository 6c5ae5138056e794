/**
 * The state of one server directory: what is alive and what is left in it, the one definition
 * the registry, `clean`, `doctor` and `stop` share.
 */
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isFastTestDbError } from '../../errors.js';
import type { EngineName, ServerInfo } from '../../types.js';
import { pidAlive } from '../os/lock.js';
import { assertPrivate } from '../os/private-dir.js';
import { isKeeperOf, processesIn } from '../os/processes.js';
import { listDir, readJson } from '../os/shared-files.js';
import { engineOfServerDir, type RootSettings, serversRoot } from './dirs.js';
import { type KeeperPlan, type KeeperStatus, keeperFiles } from './files.js';

export type ServerStateName = 'starting' | 'running' | 'stopping' | 'orphaned' | 'stopped';

export interface OwnedServerEntry {
  dir: string;
  engine: EngineName | 'unknown';
  /**
   * starting/running/stopping: a live keeper owns it (or a live process is setting it up);
   * orphaned: its keeper is gone and a server process or data is left;
   * stopped: nothing is left but bookkeeping files.
   */
  state: ServerStateName;
  /** The state in words, the same in `doctor`, `clean --dry-run` and `clean`. */
  summary: string;
  /** The project directory that started it (undefined for a directory without a plan). */
  project?: string;
  info?: ServerInfo;
  status?: KeeperStatus;
  /** Client processes still holding a lease. */
  leases: number[];
  /** Live processes of ours working in it (server, init commands), verified through /proc. */
  processes: number[];
  /** The server process, when it is among `processes`. */
  serverPid?: number;
  /** Since the last change of its status. */
  ageMs: number;
}

function lockOwner(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(keeperFiles(dir).lock, 'owner'), 'utf8'));
    return pid !== process.pid && pidAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What is alive and what is left in one server directory. */
export function serverState(dir: string): OwnedServerEntry {
  const files = keeperFiles(dir);
  const status = readJson<KeeperStatus>(files.status);
  const info = readJson<ServerInfo>(files.state);
  const plan = readJson<KeeperPlan>(files.plan);
  const name = basename(dir);
  const engine = engineOfServerDir(name) ?? 'unknown';
  let changed = Date.now();
  for (const f of [files.status, dir]) {
    try {
      changed = statSync(f).mtimeMs;
      break;
    } catch {
      /* try the next */
    }
  }
  const leases = listDir(files.leases)
    .map(Number)
    .filter((p) => pidAlive(p));
  const base = { dir, engine, project: plan?.project, info, status, leases, ageMs: Date.now() - changed } as const;
  const clients = plural(leases.length, 'client');
  if (status && isKeeperOf(status.keeperPid, dir)) {
    const phase = status.phase === 'running' && info ? 'running' : status.phase === 'stopping' ? 'stopping' : 'starting';
    const processes = status.serverPid && pidAlive(status.serverPid) ? [status.serverPid] : [];
    return { ...base, state: phase, processes, serverPid: processes[0], summary: `${phase} (keeper ${status.keeperPid}, ${clients})` };
  }
  const setter = lockOwner(dir);
  if (setter !== undefined && (!status || status.phase === 'stopped'))
    return { ...base, state: 'starting', processes: [], summary: `being set up by process ${setter}` };
  const processes = processesIn(dir, [status?.serverPid]);
  const serverPid = status?.serverPid !== undefined && processes.includes(status.serverPid) ? status.serverPid : undefined;
  const dataLeft = (plan?.cleanup ?? []).some((p) => existsSync(p));
  if (processes.length > 0) {
    const what = serverPid ? `server process ${serverPid} still runs` : `process ${processes.join(', ')} still runs in it`;
    return {
      ...base,
      state: 'orphaned',
      processes,
      serverPid,
      summary: `lost its keeper; ${what}${leases.length ? `, used by ${clients}` : ''}`,
    };
  }
  if (dataLeft) return { ...base, state: 'orphaned', processes, summary: 'lost its keeper; its data was left behind' };
  return { ...base, state: 'stopped', processes, summary: 'stopped; only its bookkeeping files are left' };
}

/** Every server directory of this user; only this project's (cwd) unless `all`. */
export function listOwnedServers(settings: RootSettings, scope: { all?: boolean; project?: string } = {}): OwnedServerEntry[] {
  const root = serversRoot(settings);
  const project = scope.project ?? process.cwd();
  const out: OwnedServerEntry[] = [];
  // Another user's folder (or a link) under our name is neither read nor cleaned: it is not ours.
  assertPrivate(root);
  for (const name of listDir(root).sort()) {
    // Only the registry's server directories (engine-hash); anything else there is not a server.
    if (!engineOfServerDir(name)) continue;
    const dir = join(root, name);
    try {
      if (!lstatSync(dir).isDirectory()) continue;
      assertPrivate(dir);
    } catch (e) {
      if (isFastTestDbError(e)) throw e;
      continue;
    }
    const entry = serverState(dir);
    // A directory without a plan names no project: only `all` sees it.
    if (!scope.all && entry.project !== project) continue;
    out.push(entry);
  }
  return out;
}
