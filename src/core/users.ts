/**
 * Who uses a database or a template, so that no run drops or reuses what another live run holds.
 *
 * A database's marker names the process that created it (`pid`) and the invocation it belongs to
 * (`invocation`: a runner's main process, whose workers come and go, else the creating process
 * itself). A template's users are the live invocations that hold a lease in its marker (a runner's
 * global setup or prepareTemplate(), from before the first clone to the end of the run) and the
 * live owners of its clones (a createTestDatabase() caller). Pids say something only on the
 * machine that wrote them; a lease from another machine counts for LEASE_REMOTE_MS.
 */
import { hostname } from 'node:os';
import type { MarkerStore, ServerRoles, SqlClient } from '../engines/engine.js';
import { invocationPid, type Lease, type Marker } from '../engines/marker.js';
import { FastTestDbError } from '../errors.js';
import { pidAlive } from '../server/os/lock.js';
import { invocation } from '../state.js';

/** A lease written on another machine cannot be checked: it holds this long, as a run rarely lasts longer. */
const LEASE_REMOTE_MS = 24 * 3_600_000;

/** A runner's worker: its databases belong to the run of the runner's main process `pid`. */
export function joinInvocation(pid: number | undefined): void {
  invocation.joined = pid;
}

/** The live invocation other than ours that holds `marker`'s database on this machine, if any. */
export function liveOtherOwner(marker: Pick<Marker, 'pid' | 'host' | 'invocation'>): number | undefined {
  if (marker.host !== hostname()) return undefined;
  const owner = marker.invocation ?? marker.pid;
  if (owner === undefined || owner === invocationPid() || marker.pid === process.pid) return undefined;
  // A worker's database is held while its run lives, and while the worker itself does.
  if (pidAlive(owner)) return owner;
  return marker.pid !== undefined && marker.pid !== owner && pidAlive(marker.pid) ? marker.pid : undefined;
}

export function heldByOther(name: string, marker: Marker, owner: number): FastTestDbError {
  return new FastTestDbError(
    'DATABASE_IN_USE',
    `${name} belongs to process ${owner}${marker.run ? ` (run ${marker.run})` : ''}, which is still running: another run of this project uses the same names; it was left untouched`,
    'let each run have its own run id (runners make one per invocation; set FAST_TEST_DB_RUN_ID to differ if you set it by hand), or set another prefix or worker id',
  );
}

function leaseLive(l: Lease, now = Date.now()): boolean {
  if (l.host !== hostname()) return now - Date.parse(l.at) < LEASE_REMOTE_MS;
  return pidAlive(l.pid);
}

/**
 * What keeps template `name` (whose marker is `marker`) in use, in words, or undefined when nothing
 * live does: a live lease, or a clone of it whose invocation is alive (`ours`: every database of ours
 * the caller listed).
 */
export function templateUsers(name: string, marker: Marker, ours: ReadonlyArray<{ name: string; marker: Marker }>): string | undefined {
  const lease = (marker.leases ?? []).find((l) => leaseLive(l));
  if (lease)
    return `in use by process ${lease.pid}${lease.run ? ` (run ${lease.run})` : ''}${lease.host !== hostname() ? ` on ${lease.host}` : ''}`;
  for (const d of ours) {
    if (d.marker.kind !== 'database' || d.marker.template !== name) continue;
    const owner = liveOtherOwner(d.marker);
    if (owner !== undefined) return `cloned into ${d.name}, which process ${owner} still uses`;
  }
  return undefined;
}

/** Why template `name` must stay, read from the server now, or undefined when nothing live uses it. */
export async function templateInUse(markers: MarkerStore, admin: SqlClient, name: string, prefix: string): Promise<string | undefined> {
  const marker = await markers.readMarker(admin, name);
  if (!marker) return undefined;
  return templateUsers(name, marker, await markers.listOurs(admin, prefix));
}

/**
 * Records this invocation as a user of the complete template `name`, under the template's lock, so
 * that `clean` and other runs' eviction (which look under the same lock) leave it alone while this
 * process lives. Dead users' leases are removed meanwhile. Returns false when the template is not
 * (or no longer) complete: the caller builds it again.
 */
export async function leaseTemplate(
  roles: Pick<ServerRoles, 'locks' | 'templates' | 'markers'>,
  admin: SqlClient,
  name: string,
  run?: string,
): Promise<boolean> {
  const { locks, templates, markers } = roles;
  return locks.withLock(admin, name, async () => {
    if ((await templates.templateState(admin, name)) !== 'complete') return false;
    const marker = (await markers.readMarker(admin, name))!;
    const pid = invocationPid();
    const now = Date.now();
    const kept = (marker.leases ?? []).filter((l) => !(l.pid === pid && l.host === hostname()) && leaseLive(l, now));
    const leases = [...kept, { pid, host: hostname(), run, at: new Date(now).toISOString() }];
    await markers.writeMarker(admin, name, { ...marker, leases });
    return true;
  });
}

/** Two processes created the same database at once: they were given the same worker id. */
export function sharedWorkerId(name: string): FastTestDbError {
  return new FastTestDbError(
    'DATABASE_IN_USE',
    `another process created ${name} at the same moment: two processes are using the same worker id`,
    'give each process its own worker id (the worker option or FAST_TEST_DB_WORKER; runner variables such as VITEST_POOL_ID leak into child processes), or a suffix',
  );
}
