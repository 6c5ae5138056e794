/**
 * recreate(): the worker's database replaced by a fresh clone of the template, under the same name.
 *
 * Dropping a database costs a checkpoint, and so does a FILE_COPY clone: together most of a
 * per-file recreate. On PostgreSQL the used database is renamed aside instead (a catalog update)
 * and a spare clone made ahead of time is renamed into place, both in one transaction; the drop of
 * the used one and the next spare's clone happen in the background, while the next test file
 * runs. The first recreate of a name clones on the hot path (there is no spare yet). Background work is
 * awaited by the next recreate and by destroy(); what a killed process leaves (`__old_`, `__spare_`,
 * both carrying our marker) is a leftover, dropped by the next process using the same prefix
 * (leftovers.ts), and by `clean`.
 * Engines without a database rename (MySQL) drop, then clone, as before.
 */
import type { SqlClient, Swap } from '../engines/engine.js';
import { newMarker, ownerGone } from '../engines/marker.js';
import type { FastTestDbError } from '../errors.js';
import { logger } from '../util/log.js';
import { pidAlive } from '../server/os/lock.js';
import { createPastLeftover, sweepLeftovers } from './leftovers.js';
import { cloneInto, type CloneRequest } from './clone.js';
import { withClient } from '../engines/connect.js';
import { oldName, prefixOf, spareName, standbyName } from './names.js';
import { heldByOther, liveOtherOwner } from './users.js';
import type { ServerInfo } from '../types.js';
import { recreateWork } from '../state.js';

const log = logger('recreate');

/** recreate()'s background work is kept per server and database name (state.ts, recreateWork). */
const keyOf = (server: ServerInfo, name: string) => `${server.host}:${server.port}/${name}`;

/** Waits for the background work a recreate of `name` left (the old database's drop, the next spare). */
export async function settleRecreate(server: ServerInfo, name: string): Promise<void> {
  await recreateWork.get(keyOf(server, name));
}

/**
 * Replaces `req.name` with a fresh clone of `req.template`. `force`: connections still open to the
 * used database are ended (a previous test file's pool); without it such connections make it fail.
 */
export async function recreateDatabase(admin: SqlClient, req: CloneRequest): Promise<void> {
  const { roles, server, name } = req;
  const { swap } = roles;
  if (!swap) return cloneInto(admin, req);
  const key = keyOf(server, name);
  const started = performance.now();
  await recreateWork.get(key);
  const waited = performance.now() - started;
  const existing = await roles.markers.readMarker(admin, name);
  // Missing (a first clone: no spare yet, a database cloned once needs none), or not ours
  // (cloneInto says so, and touches nothing that is not ours).
  if (!existing) return cloneInto(admin, req);
  const owner = liveOtherOwner(existing);
  if (owner !== undefined) throw heldByOther(name, existing, owner);
  if (req.force || ownerGone(existing, pidAlive)) await swap.endConnections(admin, name);
  const old = oldName(name);
  const usedSpare = await takeSpare(admin, req, swap, old);
  if (!usedSpare) await swap.renameDatabases(admin, [[name, old]]);
  try {
    if (!usedSpare) await cloneInto(admin, { ...req, force: false });
    log(
      '%s: %s in %d ms (%d ms waiting for the previous background work)',
      name,
      usedSpare ? 'spare taken' : 'cloned',
      Math.round(performance.now() - started),
      Math.round(waited),
    );
  } finally {
    // The used database is dropped even when its replacement failed.
    background(req, [old]);
  }
}

/**
 * Renames `req.name` to `old` and this process's spare into its place, in one transaction; false
 * (nothing renamed) when there is no spare of ours or it cannot be taken.
 */
async function takeSpare(admin: SqlClient, req: CloneRequest, swap: Swap, old: string): Promise<boolean> {
  const { name } = req;
  const spare = spareName(name, req.template);
  // Only a spare this process made: another's may be a clone of a template since rebuilt.
  if ((await req.roles.markers.readMarker(admin, spare))?.pid !== process.pid) return false;
  return swap
    .renameDatabases(admin, [
      [name, old],
      [spare, name],
    ])
    .then(
      () => true,
      (e: unknown) => {
        if ((e as FastTestDbError).code === 'DATABASE_IN_USE') throw e;
        log('spare %s not taken: %s', spare, (e as Error).message);
        return false;
      },
    );
}

/** Drops `drops`, then makes the next spare, on a connection of its own; failures are logged, not thrown. */
function background(req: CloneRequest, drops: string[]): void {
  const { roles, server, template, name } = req;
  const { markers, templates } = roles;
  const key = keyOf(server, name);
  const work = withClient(roles.connector, server, async (admin) => {
    for (const old of drops) await templates.drop(admin, old, { force: true });
    await sweepLeftovers(roles, admin, server, prefixOf(name));
    const spare = spareName(name, template);
    if ((await markers.readMarker(admin, spare)) === undefined) {
      // A spare's clone killed before its rename left its staging name behind.
      await createPastLeftover(roles, admin, spare, () =>
        templates.clone(admin, server, template, spare, newMarker('database', { run: req.run, template })),
      );
      if (!server.owned) await roles.tuner.tuneDatabase(admin, spare);
    }
  }).catch((e: unknown) => log('background work for %s: %s', name, (e as Error).message));
  const tracked = work.finally(() => {
    if (recreateWork.get(key) === tracked) recreateWork.delete(key);
  });
  recreateWork.set(key, tracked);
}

/**
 * destroy(): the background work finished, and this process's spare for `name` dropped; on a
 * server of ours, a standby of the template left for the next process that opens a database of it
 * (clone.ts, takeStandby): this spare renamed, or, when there is none, a clone made here, where
 * it costs the ending process what it saves the next one's start. One per template and prefix,
 * with no run in its marker, so that a run's end leaves it; `clean` and the warm copy drop it.
 */
export async function releaseSpare(admin: SqlClient, req: Pick<CloneRequest, 'roles' | 'server' | 'template' | 'name'>): Promise<void> {
  const { roles, server, template, name } = req;
  await settleRecreate(server, name);
  // Only an engine with the rename swap makes spares.
  if (!roles.swap) return;
  const spare = spareName(name, template);
  const marker = await roles.markers.readMarker(admin, spare);
  const ours = marker !== undefined && marker !== null && marker.pid === process.pid;
  if (server.owned && (await leaveStandby(admin, req, ours ? spare : undefined))) return;
  if (ours) await roles.templates.drop(admin, spare, { force: true });
}

/** True when `spare` became the standby (it is then no longer there to drop). */
async function leaveStandby(
  admin: SqlClient,
  req: Pick<CloneRequest, 'roles' | 'server' | 'template' | 'name'>,
  spare: string | undefined,
): Promise<boolean> {
  const { roles, server, template, name } = req;
  const standby = standbyName(prefixOf(name), template);
  if ((await roles.markers.readMarker(admin, standby)) !== undefined) return false;
  const mark = async () => {
    const made = await roles.markers.readMarker(admin, standby);
    if (made) await roles.markers.writeMarker(admin, standby, { ...made, ...newMarker('database', { template }), run: undefined });
  };
  try {
    if (spare) {
      await roles.swap!.renameDatabases(admin, [[spare, standby]]);
      await mark();
      return true;
    }
    await createPastLeftover(roles, admin, standby, () =>
      roles.templates.clone(admin, server, template, standby, newMarker('database', { template })),
    );
  } catch (e) {
    // Another process ending at the same time left one first: this one is not needed.
    log('standby %s not left: %s', standby, (e as Error).message);
  }
  return false;
}
