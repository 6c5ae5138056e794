/**
 * `clean`: drops test databases and templates that carry our marker and are older than asked, and
 * stops servers we started whose keeper died. Safety rests on two checks made on the server itself,
 * never on names alone: a database without our marker is never a candidate, and one whose creating
 * process is still alive on this machine is left alone.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Dialect, Marker, SqlClient } from './dialect/dialect.js';
import { dialectFor } from './dialect/index.js';
import { classifyDriverError, FastTestDbError, messageOf } from './errors.js';
import { logger } from './log.js';
import { keeperFiles, type KeeperPlan, type KeeperStatus } from './server/keeper-files.js';
import { pidAlive, withFileLock } from './server/lock.js';
import { serversRoot } from './server/registry.js';
import { parseServerUrl } from './server/resolve.js';
import type { Engine, ServerInfo, TestDatabaseOptions } from './types.js';

const log = logger('clean');

// ---------------------------------------------------------------------------------------------
// Durations

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a duration such as `90s`, `30m`, `2h`, `7d`, `1h30m` or a bare number of seconds. */
export function parseDuration(text: string): number {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t)
    throw new FastTestDbError('BAD_OPTION', `"${text}" is not a duration`, 'write it like 90s, 30m, 2h, 7d or 1h30m (a bare number is seconds)');
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0);
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)}h`;
  return `${(s / 86_400).toFixed(1)}d`;
}

// ---------------------------------------------------------------------------------------------
// Servers we started (the registry's state directories)

export interface OwnedServerEntry {
  dir: string;
  engine: Engine | 'unknown';
  /**
   * running/starting: keeper alive; orphaned: keeper dead but something is left (a server process or
   * data); stopped: the keeper stopped it and cleaned up (only small state files remain).
   */
  state: 'running' | 'starting' | 'orphaned' | 'stopped';
  info?: ServerInfo;
  status?: KeeperStatus;
  /** Client processes still holding a lease. */
  leases: number[];
  /** A server process still alive whose command line names this directory. */
  serverPid?: number;
  ageMs: number;
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** True when `pid` is alive and its command line mentions `dir`: a recycled pid is never mistaken for our server. */
function processUses(pid: number | undefined, dir: string): boolean {
  if (!pid || !pidAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    // No /proc (macOS): the pid alone is the best evidence there is.
    return process.platform !== 'linux';
  }
}

/** Every server directory of this user, with what is still alive in it. */
export function listOwnedServers(options: TestDatabaseOptions = {}): OwnedServerEntry[] {
  const root = serversRoot(options);
  if (!existsSync(root)) return [];
  const out: OwnedServerEntry[] = [];
  for (const name of readdirSync(root).sort()) {
    // Only the registry's server directories (engine-hash); anything else there is not a server.
    if (!/^(postgres|mysql)-[0-9a-f]+$/.test(name)) continue;
    const dir = join(root, name);
    let mtime: number;
    try {
      if (!statSync(dir).isDirectory()) continue;
      mtime = statSync(dir).mtimeMs;
    } catch {
      continue;
    }
    const files = keeperFiles(dir);
    const status = readJson<KeeperStatus>(files.status);
    const info = readJson<ServerInfo>(files.state);
    const leases = (existsSync(files.leases) ? readdirSync(files.leases) : []).map(Number).filter((p) => pidAlive(p));
    const engine = name.startsWith('postgres-') ? 'postgres' : name.startsWith('mysql-') ? 'mysql' : 'unknown';
    let statusTime = mtime;
    try {
      statusTime = statSync(files.status).mtimeMs;
    } catch {
      /* no status yet */
    }
    const keeperAlive = pidAlive(status?.keeperPid);
    const serverPid = processUses(status?.serverPid, dir) ? status?.serverPid : undefined;
    const plan = readJson<KeeperPlan>(files.plan);
    const leftovers = serverPid !== undefined || (plan?.cleanup ?? []).some((p) => existsSync(p)) || (!plan && !status);
    const state: OwnedServerEntry['state'] = keeperAlive ? (status?.phase === 'running' && info ? 'running' : 'starting') : leftovers ? 'orphaned' : 'stopped';
    out.push({ dir, engine, state, info, status, leases, serverPid, ageMs: Date.now() - statusTime });
  }
  return out;
}

/**
 * Stops a server whose keeper died (signal, then SIGKILL) and removes its directory, under the
 * registry's lock so that no client starts a server in this directory meanwhile.
 */
async function reapOrphan(entry: OwnedServerEntry): Promise<void> {
  const files = keeperFiles(entry.dir);
  await withFileLock(files.lock, async () => {
    const status = readJson<KeeperStatus>(files.status);
    if (status && status.keeperPid !== entry.status?.keeperPid && pidAlive(status.keeperPid)) return; // restarted meanwhile
    await reap(entry);
  }, 10_000);
}

async function reap(entry: OwnedServerEntry): Promise<void> {
  const plan = readJson<KeeperPlan>(keeperFiles(entry.dir).plan);
  if (entry.serverPid) {
    process.kill(entry.serverPid, plan?.stopSignal ?? 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (pidAlive(entry.serverPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (pidAlive(entry.serverPid)) process.kill(entry.serverPid, 'SIGKILL');
  }
  for (const p of plan?.cleanup ?? []) rmSync(p, { recursive: true, force: true });
  // The directory goes too, except its lock, which the caller holds and removes.
  for (const name of readdirSync(entry.dir)) if (join(entry.dir, name) !== keeperFiles(entry.dir).lock) rmSync(join(entry.dir, name), { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// Databases

export interface CleanOptions {
  /** Only what is older than this is dropped. 0 drops everything of ours that nobody alive holds. */
  olderThanMs: number;
  /** Server to clean (admin URL). Without it: every running server we started. */
  url?: string;
  allowRemote?: boolean;
  /** Only names starting with this. Default: every database carrying our marker. */
  prefix?: string;
  /** Only this CI run's databases and templates (the run id in their marker). */
  run?: string;
  /** Report what would happen, change nothing. */
  dryRun?: boolean;
  /** Terminate connections still open to a stale database before dropping it. */
  force?: boolean;
  /** Also stop and remove servers we started whose keeper is dead. Default true. */
  servers?: boolean;
  /** Where owned servers live (the dataRoot option). */
  dataRoot?: string;
  /** Called before each drop or stop, with how many of how many. */
  onProgress?: (done: number, total: number, what: string) => void;
  now?: number;
}

export interface CleanItem {
  name: string;
  kind: Marker['kind'];
  created: string;
  ageMs: number;
  run?: string;
  reason: string;
}

export interface CleanTarget {
  /** The server, as a URL without password. */
  server: string;
  engine: Engine;
  dropped: CleanItem[];
  kept: CleanItem[];
  failed: Array<CleanItem & { error: string }>;
  error?: string;
}

export interface CleanReport {
  dryRun: boolean;
  olderThanMs: number;
  targets: CleanTarget[];
  servers: Array<{ dir: string; engine: string; action: 'stopped' | 'removed' | 'kept' | 'would stop' | 'would remove'; reason: string }>;
  /** False when something could not be dropped or a server could not be reached. */
  ok: boolean;
}

function publicUrl(s: Pick<ServerInfo, 'engine' | 'user' | 'host' | 'port' | 'socket'>): string {
  return `${s.engine === 'postgres' ? 'postgres' : 'mysql'}://${encodeURIComponent(s.user)}@${s.host}:${s.port}`;
}

/** Why a marked database stays, or undefined when it is stale. */
function keepReason(m: Marker, ageMs: number, opts: CleanOptions): string | undefined {
  if (opts.run !== undefined && m.kind === 'template') return 'templates are shared across runs by fingerprint: clean them by age, without --run';
  if (opts.run !== undefined && m.run !== opts.run) return `belongs to run ${m.run ?? '(none)'}`;
  if (ageMs < opts.olderThanMs) return `younger than ${formatDuration(opts.olderThanMs)}`;
  if (m.host === hostname() && m.pid !== undefined && pidAlive(m.pid)) return `its process ${m.pid} is still running`;
  return undefined;
}

async function cleanServer(server: ServerInfo, dialect: Dialect, opts: CleanOptions, counter: { done: number; total: number }): Promise<CleanTarget> {
  const target: CleanTarget = { server: publicUrl(server), engine: server.engine, dropped: [], kept: [], failed: [] };
  let admin: SqlClient;
  try {
    admin = await dialect.connect(server);
  } catch (e) {
    target.error = messageOf(e);
    return target;
  }
  try {
    const now = opts.now ?? Date.now();
    const ours = await dialect.listOurs(admin, opts.prefix ?? '');
    const stale: CleanItem[] = [];
    for (const { name, marker } of ours) {
      const created = Date.parse(marker.created);
      const ageMs = Number.isFinite(created) ? now - created : Infinity;
      const item: CleanItem = { name, kind: marker.kind, created: marker.created, ageMs, run: marker.run, reason: '' };
      const why = keepReason(marker, ageMs, opts);
      if (why) target.kept.push({ ...item, reason: why });
      else stale.push({ ...item, reason: `older than ${formatDuration(opts.olderThanMs)}` });
    }
    // A creation killed between CREATE DATABASE and its marker leaves a database that is ours by its
    // staging name alone; one still unmarked after a second look is a leftover.
    const unmarked = (await dialect.listStaging(admin)).filter((n) => n.startsWith(opts.prefix ?? '') && !ours.some((o) => o.name === n));
    if (unmarked.length) await new Promise((r) => setTimeout(r, 300));
    const leftovers = new Set<string>();
    for (const name of unmarked)
      if ((await dialect.readMarker(admin, name)) === null) {
        leftovers.add(name);
        stale.push({ name, kind: 'database', created: '', ageMs: Infinity, reason: 'left unmarked by a creation that was killed' });
      }
    // Clones before templates, so that a template is never dropped while a clone of it is being made here.
    stale.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'database' ? -1 : 1));
    counter.total += stale.length;
    for (const item of stale) {
      opts.onProgress?.(++counter.done, counter.total, item.name);
      if (opts.dryRun) {
        target.dropped.push(item);
        continue;
      }
      try {
        // Read the marker again right before dropping: the name may have been replaced meanwhile.
        const marker = await dialect.readMarker(admin, item.name);
        if (!marker && !(marker === null && leftovers.has(item.name))) {
          target.kept.push({ ...item, reason: marker === null ? 'no longer carries our marker' : 'already gone' });
          continue;
        }
        await dialect.drop(admin, item.name, { force: opts.force });
        target.dropped.push(item);
      } catch (e) {
        target.failed.push({ ...item, error: messageOf(e) });
      }
    }
  } catch (e) {
    target.error = messageOf(classifyDriverError(e, `cleaning ${target.server}`));
  } finally {
    await admin.close();
  }
  return target;
}

async function serverFromUrl(url: string, allowRemote: boolean): Promise<ServerInfo> {
  const partial = parseServerUrl(url, allowRemote);
  return { ...partial, flavor: partial.engine, version: '', major: 0, tuned: false };
}

export async function clean(opts: CleanOptions): Promise<CleanReport> {
  const report: CleanReport = { dryRun: Boolean(opts.dryRun), olderThanMs: opts.olderThanMs, targets: [], servers: [], ok: true };
  const counter = { done: 0, total: 0 };
  const owned = listOwnedServers({ dataRoot: opts.dataRoot });
  const servers: ServerInfo[] = opts.url
    ? [await serverFromUrl(opts.url, opts.allowRemote ?? process.env.FAST_TEST_DB_ALLOW_REMOTE === '1')]
    : owned.filter((o) => o.state === 'running' && o.info).map((o) => o.info!);
  for (const server of servers) {
    const target = await cleanServer(server, await dialectFor(server.engine), opts, counter);
    log('%s: dropped %d, kept %d, failed %d', target.server, target.dropped.length, target.kept.length, target.failed.length);
    report.targets.push(target);
  }
  if (opts.servers !== false) {
    for (const entry of owned) {
      const base = { dir: entry.dir, engine: entry.engine };
      if (entry.state === 'stopped') continue;
      if (entry.state !== 'orphaned') report.servers.push({ ...base, action: 'kept', reason: `keeper ${entry.status?.keeperPid} is running` });
      else if (entry.leases.length) report.servers.push({ ...base, action: 'kept', reason: `keeper is gone but process ${entry.leases.join(', ')} still uses it` });
      // A directory without status may be a server being set up this very moment.
      else if (!entry.status && entry.ageMs < 60_000) report.servers.push({ ...base, action: 'kept', reason: 'being set up' });
      else if (entry.ageMs < opts.olderThanMs) report.servers.push({ ...base, action: 'kept', reason: `younger than ${formatDuration(opts.olderThanMs)}` });
      else {
        const what = entry.serverPid ? 'stop' : 'remove';
        counter.total++;
        opts.onProgress?.(++counter.done, counter.total, entry.dir);
        const reason = entry.serverPid ? `keeper died; server process ${entry.serverPid} left running` : 'keeper died; data left behind';
        if (opts.dryRun) report.servers.push({ ...base, action: `would ${what}`, reason });
        else {
          await reapOrphan(entry);
          report.servers.push({ ...base, action: what === 'stop' ? 'stopped' : 'removed', reason });
        }
      }
    }
  }
  report.ok = report.targets.every((t) => !t.error && t.failed.length === 0);
  return report;
}
