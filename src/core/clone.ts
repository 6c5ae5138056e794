/**
 * A worker's database: a name no live run holds, and a clone of the template under it, replacing
 * what we left under that name before and never a database that is not ours.
 */
import type { ServerRoles, SqlClient } from '../engines/engine.js';
import { newMarker, ownerGone } from '../engines/marker.js';
import { FastTestDbError } from '../errors.js';
import { driverErrorKind } from '../engines/errors.js';
import { pidAlive } from '../server/os/lock.js';
import type { ServerInfo } from '../types.js';
import { logger } from '../util/log.js';
import { sleep } from '../util/sleep.js';
import { createPastLeftover, dropRunLeftovers } from './leftovers.js';
import { ownProcessNames, prefixOf, releaseName, type ResolvedNames, standbyName, unheldName } from './names.js';
import { heldByOther, liveOtherOwner, sharedWorkerId } from './users.js';

const log = logger('database');

/**
 * This worker's name, or, while another live run holds it (a second terminal running the same
 * suite without a runner, or with the same CI run id), a name of this process's own. Reserved
 * (names.ts, unheldName) until the handle closes; the caller releases it if no handle is made.
 */
export async function nameOfOurOwn(
  roles: Pick<ServerRoles, 'markers' | 'templates'>,
  admin: SqlClient,
  names: ResolvedNames,
  suffix?: string,
): Promise<string> {
  const name = unheldName(names, suffix);
  const marker = await roles.markers.readMarker(admin, name).catch((e: unknown) => {
    releaseName(name);
    throw e;
  });
  const owner = marker ? liveOtherOwner(marker) : undefined;
  if (owner === undefined) return name;
  releaseName(name);
  const own = unheldName(ownProcessNames(names), suffix);
  log('%s belongs to process %d, which is still running: this process uses %s', name, owner, own);
  // Names of a process's own are never taken again by name: what killed processes left under
  // them (same run, its process gone from this machine) is dropped here instead.
  await dropRunLeftovers(roles, admin, names, own).catch((e: unknown) => {
    releaseName(own);
    throw e;
  });
  return own;
}

/** What to clone where, with the roles of the server's engine. */
export interface CloneRequest {
  roles: ServerRoles;
  server: ServerInfo;
  template: string;
  name: string;
  run?: string;
  /** Connections still open to our database under `name` are ended first. */
  force?: boolean;
}

/**
 * Clones `template` into `name`, replacing whatever we left under that name before (a crashed run,
 * a previous test file), never a database that is not ours.
 */
export async function cloneInto(admin: SqlClient, req: CloneRequest): Promise<void> {
  const { roles, server, template, name } = req;
  const { markers, templates } = roles;
  let existing = await markers.readMarker(admin, name);
  if (existing === null) {
    // A database is created before its marker is written: look again before calling it foreign.
    await sleep(300);
    existing = await markers.readMarker(admin, name);
    if (existing) throw sharedWorkerId(name);
  }
  if (existing === null)
    throw new FastTestDbError(
      'NOT_OURS',
      `a database named ${name} already exists and was not created by fast-test-db; it was left untouched`,
      'set another prefix (FAST_TEST_DB_PREFIX) or worker id, or remove that database yourself',
    );
  if (existing) {
    // Another live run's database is never dropped, whatever `force` says.
    const owner = liveOtherOwner(existing);
    if (owner !== undefined) throw heldByOther(name, existing, owner);
    // What a killed process left has no live connection worth sparing (a dead MySQL client's clone
    // script may still be running on the server: it is ended too).
    await templates.drop(admin, name, { force: req.force || ownerGone(existing, pidAlive) });
  }
  if (await takeStandby(admin, req)) return;
  await createPastLeftover(roles, admin, name, () =>
    templates.clone(admin, server, template, name, newMarker('database', { run: req.run, template })).catch((e) => {
      throw driverErrorKind(e) === 'database-exists' ? sharedWorkerId(name) : e;
    }),
  );
  if (!server.owned) await roles.tuner.tuneDatabase(admin, name);
}

/**
 * The clone made ahead of the template (recreate.ts, leaveStandby: the last process to destroy a
 * database of it leaves one) renamed into place: a catalog update where CREATE DATABASE costs a
 * checkpoint and the copy, most of a worker's start with the server up. Taken only when its maker
 * is gone (or is this process), of this template and made after its build; false when there is none.
 */
async function takeStandby(admin: SqlClient, req: CloneRequest): Promise<boolean> {
  const { roles, server, template, name } = req;
  const { markers, swap } = roles;
  if (!swap || !server.owned) return false;
  const standby = standbyName(prefixOf(name), template);
  const marker = await markers.readMarker(admin, standby);
  if (marker?.kind !== 'database' || marker.template !== template) return false;
  if (marker.pid !== process.pid && !ownerGone(marker, pidAlive)) return false;
  const built = await markers.readMarker(admin, template);
  if (!built || Date.parse(built.created) > Date.parse(marker.created)) return false;
  try {
    await swap.renameDatabases(admin, [[standby, name]]);
  } catch (e) {
    // Taken by a process racing for it, or dropped meanwhile: clone instead.
    log('standby %s not taken: %s', standby, (e as Error).message);
    return false;
  }
  // Ours under its final name: the rename that succeeded was this process's.
  const { seeded, sequences, seedRows, seedXid, unpopulated, largeObjects } = marker;
  await markers.writeMarker(
    admin,
    name,
    newMarker('database', { run: req.run, template, seeded, sequences, seedRows, seedXid, unpopulated, largeObjects }),
  );
  log('%s: standby %s taken', name, standby);
  return true;
}
