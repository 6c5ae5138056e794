/**
 * `clean`: drops test databases and templates that carry our marker and are older than asked, and
 * stops servers we started whose keeper died (this project's, or every project's with `all`), and
 * removes what killed saves and copies left on disk (server/keeper/leftover-copies.ts says whose). Safety rests on two checks made on the server itself,
 * never on names alone: a database without our marker is never a candidate, and one whose creating
 * process is still alive on this machine is left alone.
 */
import type { MarkerStore, ServerRoles, SqlClient } from '../../engines/engine.js';
import { engineFor } from '../../engines/index.js';
import type { Marker } from '../../engines/marker.js';
import { messageOf } from '../../errors.js';
import { classifyDriverError } from '../../engines/errors.js';
import { logger } from '../../util/log.js';
import { reapServer } from '../../server/keeper/reap.js';
import { listOwnedServers } from '../../server/keeper/server-state.js';
import { cleanLeftContainers } from '../../server/providers/container-leftovers.js';
import { removeLeftoverCopy, leftoverCopies, type LeftoverCopy, type LeftoverKind } from '../../server/keeper/leftover-copies.js';
import { isLoopback, serverAt } from '../../server/providers/url.js';
import { sleep } from '../../util/sleep.js';
import type { EngineName, ServerInfo } from '../../types.js';
import { formatDuration } from '../duration.js';
import { buildContext, type Context } from '../../options/context.js';
import { liveOtherOwner, templateInUse, templateUsers } from '../../core/users.js';

const log = logger('clean');

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
  /** Servers of every project of this user, not only this one's (cwd). With `url`, only that server. */
  all?: boolean;
  /** The environment to read (the CLI's); default this process's. */
  env?: Readonly<NodeJS.ProcessEnv>;
  /** Where owned servers live (the dataRoot option). */
  dataRoot?: string;
  /** This project's cache of data directories (the cacheDir option), where partial copies may be left. */
  cacheDir?: string;
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
  engine: EngineName;
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
  /** What killed saves and copies left on disk (server/keeper/leftover-copies.ts), with what each holds. */
  files: Array<{ path: string; kind: LeftoverKind; bytes: number; action: 'removed' | 'kept' | 'would remove' | 'failed'; reason: string }>;
  /** False when something could not be dropped or a server could not be reached. */
  ok: boolean;
}

function publicUrl(s: Pick<ServerInfo, 'engine' | 'user' | 'host' | 'port' | 'socket'>): string {
  return `${engineFor(s.engine).urls.schemes[0]}://${encodeURIComponent(s.user)}@${s.host}:${s.port}`;
}

/** Why a marked database stays, or undefined when it is stale. `ours`: every database of ours on the server. */
function keepReason(name: string, m: Marker, ageMs: number, opts: CleanOptions, ours: Ours): string | undefined {
  if (opts.run !== undefined && m.kind === 'template')
    return 'templates are shared across runs by fingerprint: clean them by age, without --run';
  if (opts.run !== undefined && m.run !== opts.run) return `belongs to run ${m.run ?? '(none)'}`;
  if (ageMs < opts.olderThanMs) return `younger than ${formatDuration(opts.olderThanMs)}`;
  const owner = liveOtherOwner(m);
  if (owner !== undefined) return `its process ${owner} is still running`;
  // A template's builder is long gone while runs still clone it: its users are its leases and clones.
  return m.kind === 'template' ? templateUsers(name, m, ours) : undefined;
}

type Ours = Awaited<ReturnType<MarkerStore['listOurs']>>;

/**
 * Drops `name`; a template under its lock, after a last look at its users (a run that leases it
 * takes the same lock). Returns why it was kept instead, if it was.
 */
async function dropUnlessUsed(
  roles: Pick<ServerRoles, 'locks' | 'markers' | 'templates'>,
  admin: SqlClient,
  item: CleanItem,
  force?: boolean,
): Promise<string | undefined> {
  if (item.kind !== 'template') return void (await roles.templates.drop(admin, item.name, { force }));
  const kept = await roles.locks.withFreeLock(admin, item.name, async () => {
    const inUse = await templateInUse(roles.markers, admin, item.name, '');
    if (!inUse) await roles.templates.drop(admin, item.name, { force });
    return inUse ?? '';
  });
  return kept === undefined ? 'being built or leased right now' : kept || undefined;
}

async function cleanServer(
  server: ServerInfo,
  roles: Pick<ServerRoles, 'connector' | 'locks' | 'markers' | 'templates'>,
  opts: CleanOptions,
  counter: { done: number; total: number },
): Promise<CleanTarget> {
  const target: CleanTarget = { server: publicUrl(server), engine: server.engine, dropped: [], kept: [], failed: [] };
  let admin: SqlClient;
  try {
    admin = await roles.connector.connect(server);
  } catch (e) {
    target.error = messageOf(e);
    return target;
  }
  try {
    const now = opts.now ?? Date.now();
    const ours = await roles.markers.listOurs(admin, opts.prefix ?? '');
    const stale: CleanItem[] = [];
    for (const { name, marker } of ours) {
      const created = Date.parse(marker.created);
      const ageMs = Number.isFinite(created) ? now - created : Infinity;
      const item: CleanItem = { name, kind: marker.kind, created: marker.created, ageMs, run: marker.run, reason: '' };
      const why = keepReason(name, marker, ageMs, opts, ours);
      if (why) target.kept.push({ ...item, reason: why });
      else stale.push({ ...item, reason: `older than ${formatDuration(opts.olderThanMs)}` });
    }
    // A creation killed between CREATE DATABASE and its marker leaves a database that is ours by its
    // staging name alone; one still unmarked after a second look is a leftover.
    const unmarked = (await roles.markers.listStaging(admin)).filter(
      (n) => n.startsWith(opts.prefix ?? '') && !ours.some((o) => o.name === n),
    );
    if (unmarked.length) await sleep(300);
    const leftovers = new Set<string>();
    for (const name of unmarked)
      if ((await roles.markers.readMarker(admin, name)) === null) {
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
        const marker = await roles.markers.readMarker(admin, item.name);
        if (!marker && !(marker === null && leftovers.has(item.name))) {
          target.kept.push({ ...item, reason: marker === null ? 'no longer carries our marker' : 'already gone' });
          continue;
        }
        const kept = await dropUnlessUsed(roles, admin, item, opts.force);
        if (kept) target.kept.push({ ...item, reason: kept });
        else target.dropped.push(item);
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

/** True when an owned server's recorded address is the one a URL names. */
function sameServer(info: ServerInfo | undefined, url: ServerInfo): boolean {
  if (!info) return false;
  if (url.socket) return info.socket === url.socket || `${info.socket}/.s.PGSQL.${info.port}` === url.socket;
  return info.port === url.port && (info.host === url.host || (isLoopback(info.host) && isLoopback(url.host)));
}

export async function clean(opts: CleanOptions): Promise<CleanReport> {
  const report: CleanReport = {
    dryRun: Boolean(opts.dryRun),
    olderThanMs: opts.olderThanMs,
    targets: [],
    servers: [],
    files: [],
    ok: true,
  };
  const counter = { done: 0, total: 0 };
  const ctx = buildContext(
    { allowRemote: opts.allowRemote, dataRoot: opts.dataRoot, cacheDir: opts.cacheDir },
    { env: opts.env, check: false },
  );
  const byUrl = opts.url ? serverAt(opts.url, ctx.resolved.allowRemote, ctx.env) : undefined;
  // With a URL, `clean` is about that server alone: one of ours only when the URL names it.
  const owned = listOwnedServers(ctx, { all: opts.all || byUrl !== undefined }).filter((o) => !byUrl || sameServer(o.info, byUrl));
  const servers: ServerInfo[] = byUrl ? [byUrl] : owned.filter((o) => o.state === 'running' && o.info).map((o) => o.info!);
  for (const server of servers) {
    const target = await cleanServer(server, await engineFor(server.engine).load(), opts, counter);
    log('%s: dropped %d, kept %d, failed %d', target.server, target.dropped.length, target.kept.length, target.failed.length);
    report.targets.push(target);
  }
  if (opts.servers !== false) {
    for (const entry of owned) {
      const base = { dir: entry.dir, engine: entry.engine };
      if (entry.state === 'orphaned' && entry.leases.length === 0 && entry.ageMs < opts.olderThanMs) {
        report.servers.push({ ...base, action: 'kept', reason: `${entry.summary}; younger than ${formatDuration(opts.olderThanMs)}` });
        continue;
      }
      // Kept while a keeper owns it, or while clients of a keeperless server still use it (the last one stops it).
      if (entry.state !== 'stopped' && (entry.state !== 'orphaned' || entry.leases.length > 0)) {
        report.servers.push({ ...base, action: 'kept', reason: entry.summary });
        continue;
      }
      const stop = entry.processes.length > 0;
      counter.total++;
      opts.onProgress?.(++counter.done, counter.total, entry.dir);
      if (opts.dryRun) {
        report.servers.push({ ...base, action: stop ? 'would stop' : 'would remove', reason: entry.summary });
        continue;
      }
      const found = await reapServer(entry.dir);
      if (found.state !== 'orphaned' && found.state !== 'stopped') report.servers.push({ ...base, action: 'kept', reason: found.summary });
      else report.servers.push({ ...base, action: found.processes.length > 0 ? 'stopped' : 'removed', reason: found.summary });
    }
  }
  // Containers whose owner ended (SIGKILL with Ryuk off) go with the servers, like them not when a URL names one.
  if (opts.servers !== false && !byUrl)
    report.servers.push(...(await cleanLeftContainers({ dryRun: opts.dryRun, project: opts.all ? undefined : process.cwd() })));
  // Files go with the servers (after them: a server reaped above no longer holds a binaries copy),
  // and like them are left alone when a URL names the one server to clean.
  if (opts.servers !== false && !byUrl) cleanLeftoverCopies(opts, ctx, report, counter);
  report.ok = report.targets.every((t) => !t.error && t.failed.length === 0) && report.files.every((f) => f.action !== 'failed');
  return report;
}

/**
 * Age: --older-than applies as to everything else, from the last change (a binaries or initdb
 * copy: its last use by a start). Safety does not rest on it: a writer that runs, or a server that uses or may be
 * choosing a binaries copy, keeps it at any age (removeLeftoverCopy looks again right before). So
 * --older-than 0 removes every binaries copy nobody uses (the next start that needs one remakes it
 * in ~0.1-0.3 s), and e.g. --older-than 1d keeps the one this machine's runs use every day.
 */
function cleanLeftoverCopies(opts: CleanOptions, ctx: Context, report: CleanReport, counter: { done: number; total: number }): void {
  const stale: LeftoverCopy[] = [];
  for (const copy of leftoverCopies(ctx)) {
    const base = { path: copy.path, kind: copy.kind, bytes: copy.bytes };
    if (copy.heldBy) report.files.push({ ...base, action: 'kept', reason: copy.heldBy });
    else if (copy.ageMs < opts.olderThanMs) {
      const age = copy.kind === 'binaries' || copy.kind === 'initdb' ? 'used within' : 'younger than';
      report.files.push({ ...base, action: 'kept', reason: `${age} ${formatDuration(opts.olderThanMs)}` });
    } else stale.push(copy);
  }
  counter.total += stale.length;
  for (const copy of stale) {
    const base = { path: copy.path, kind: copy.kind, bytes: copy.bytes };
    const reason = leftoverReason(copy);
    opts.onProgress?.(++counter.done, counter.total, copy.path);
    if (opts.dryRun) {
      report.files.push({ ...base, action: 'would remove', reason });
      continue;
    }
    try {
      const held = removeLeftoverCopy(copy, ctx);
      report.files.push(held ? { ...base, action: 'kept', reason: held } : { ...base, action: 'removed', reason });
    } catch (e) {
      report.files.push({ ...base, action: 'failed', reason: messageOf(e) });
    }
  }
}

function leftoverReason(copy: LeftoverCopy): string {
  if (copy.kind === 'warm-save') return "a server's data directory or initdb output whose copy to the cache was killed";
  if (copy.kind === 'partial') return 'its writer is gone';
  if (copy.kind === 'initdb') return `no start has used it for ${formatDuration(copy.ageMs)}; the next one runs initdb and keeps it again`;
  return `no server uses it; last used ${formatDuration(copy.ageMs)} ago`;
}
