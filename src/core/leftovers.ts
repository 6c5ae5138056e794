/**
 * Leftovers: the databases a killed process left on a server, and how the core finds and drops
 * them. Each kind is looked for by the process that runs into it, never by a scan of the whole
 * server on the hot path, and dropped only while it carries our marker (or, for staging, its name)
 * and its creator is gone:
 * - staging: a creation killed between CREATE DATABASE and its rename into place (PostgreSQL
 *   builds under stagingName()): the next process that wants the same final name drops it when
 *   its own creation fails;
 * - set aside and made ahead: recreate()'s used database waiting for its drop (`__old_`) and its
 *   spare clone (`__spare_`): the next recreate of the process sweeps them, once per server and prefix;
 * - an incomplete template: a build that failed or was killed before it marked the template
 *   complete: the next build of the same template drops it, under the build lock;
 * - a database under names of a process's own (ownProcessNames): those are never taken again by
 *   name, so the next process of the same run that needs one drops what dead ones left.
 * `clean` drops the rest. What a killed server leaves on disk and in memory is the server's own
 * concern (src/server).
 */
import { hostname } from 'node:os';
import type { ServerRoles, SqlClient } from '../engines/engine.js';
import { ownerGone, stagingName } from '../engines/marker.js';
import { FastTestDbError, messageOf } from '../errors.js';
import { pidAlive } from '../server/os/lock.js';
import { leftoversSwept } from '../state.js';
import type { ServerInfo } from '../types.js';
import { logger } from '../util/log.js';
import { sleep } from '../util/sleep.js';
import { isAsideName, type ResolvedNames } from './names.js';
import { sharedWorkerId } from './users.js';

const log = logger('leftovers');

/** What finding and dropping our databases takes: their markers, and the drop. */
type Ours = Pick<ServerRoles, 'markers' | 'templates'>;

/** A staging database lives for milliseconds; one this old was left by a creator that died elsewhere. */
const STAGING_MAX_AGE_MS = 60_000;

/** Drops the leftover staging database of `name`, if any. Returns whether there was one. */
export async function dropLeftoverStaging(roles: Ours, admin: SqlClient, name: string): Promise<boolean> {
  if (!roles.templates.staged) return false;
  const staging = stagingName(name);
  let marker = await roles.markers.readMarker(admin, staging);
  if (marker === undefined) return false;
  if (marker === null) {
    // Its creator may be between CREATE DATABASE and the marker: look again before calling it a leftover.
    await sleep(300);
    marker = await roles.markers.readMarker(admin, staging);
    if (marker === undefined) return false;
  }
  const stale =
    marker === null ||
    marker.pid === process.pid ||
    ownerGone(marker, pidAlive) ||
    Date.now() - Date.parse(marker.created) > STAGING_MAX_AGE_MS;
  if (!stale) throw sharedWorkerId(name);
  log('dropping %s, left by a creation of %s that was killed', staging, name);
  await roles.templates.drop(admin, staging, { force: true });
  return true;
}

/**
 * Runs `create` (a creation of `name`); when it fails and a leftover staging database of `name`
 * was in its way, drops that and runs it once more. The leftover is looked for only on failure,
 * so that the common case pays nothing for it.
 */
export async function createPastLeftover(roles: Ours, admin: SqlClient, name: string, create: () => Promise<void>): Promise<void> {
  await create().catch(async (e: unknown) => {
    if (!(await dropLeftoverStaging(roles, admin, name))) throw e;
    await create();
  });
}

/** Once per process, server and prefix: what killed processes set aside or made ahead is dropped. */
export async function sweepLeftovers(roles: Ours, admin: SqlClient, server: ServerInfo, prefix: string): Promise<void> {
  const key = `${server.host}:${server.port}/${prefix}`;
  if (leftoversSwept.has(key)) return;
  leftoversSwept.add(key);
  for (const { name, marker } of await roles.markers.listOurs(admin, `${prefix}__`)) {
    if (!isAsideName(name) || !ownerGone(marker, pidAlive)) continue;
    log('dropping %s, left by process %d', name, marker.pid);
    await roles.templates.drop(admin, name, { force: true });
  }
}

/**
 * An earlier build of template `name` failed or was killed. Connections to it are ended only when
 * the builder is gone: a live process (a watch run whose migrate threw without closing its client)
 * would die of it.
 */
export async function dropLeftoverTemplate(roles: Ours, admin: SqlClient, name: string): Promise<void> {
  const marker = await roles.markers.readMarker(admin, name);
  const force = marker ? marker.pid !== process.pid && (ownerGone(marker, pidAlive) || marker.host !== hostname()) : true;
  log('dropping incomplete template %s (an earlier build failed or was killed)', name);
  await roles.templates.drop(admin, name, { force }).catch((e) => {
    throw new FastTestDbError(
      'DATABASE_IN_USE',
      `the incomplete template ${name} of an earlier failed build is still in use: ${messageOf(e)}`,
      'close the connections your migrate opened (client.end() in a finally block), or restart the test run',
      { cause: e },
    );
  });
}

/**
 * Drops the test databases of `names`' run (other than `keep`) whose creating process and
 * invocation are both gone from this machine; a failed drop is logged and the database kept.
 */
export async function dropRunLeftovers(roles: Ours, admin: SqlClient, names: ResolvedNames, keep: string): Promise<void> {
  for (const { name, marker: m } of await roles.markers.listOurs(admin, `${names.prefix}_`)) {
    if (m.kind !== 'database' || m.run !== names.run || name === keep) continue;
    if (!ownerGone({ host: m.host, pid: m.invocation ?? m.pid }, pidAlive) || !ownerGone(m, pidAlive)) continue;
    log('dropping %s, left by process %d', name, m.pid);
    await roles.templates.drop(admin, name, { force: true }).catch((e: unknown) => log('kept %s: %s', name, messageOf(e)));
  }
}
