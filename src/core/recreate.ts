/**
 * recreate(): the worker's database replaced by a fresh clone of the template, under the same name.
 *
 * Dropping a database costs a checkpoint, and so does a FILE_COPY clone: together most of a
 * per-file recreate. On PostgreSQL the used database is renamed aside instead (a catalog update)
 * and a spare clone made ahead of time is renamed into place, both in one transaction; the drop of
 * the used one and the next spare's clone happen in the background, while the next test file
 * runs. The first recreate of a name clones on the hot path (there is no spare yet). Background work is
 * awaited by the next recreate and by destroy(); what a killed process leaves (`__old_`, `__spare_`,
 * both carrying our marker) is dropped by the next process using the same prefix, and by `clean`.
 * Engines without a database rename (MySQL) drop, then clone, as before.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Dialect, SqlClient } from '../engines/dialect.js';
import { newMarker, ownerGone } from '../engines/dialect.js';
import type { FastTestDbError } from '../errors.js';
import { logger } from '../util/log.js';
import { pidAlive } from '../server/os/lock.js';
import { clearStaging } from './staging.js';
import { cloneInto } from './database.js';
import { withClient } from './client.js';
import { heldByOther, liveOtherOwner } from './users.js';
import type { ServerInfo } from '../types.js';
import { leftoversSwept, recreateWork } from '../state.js';

const log = logger('recreate');

/** The prefix a database name starts with (resolveNames keeps it to 16 characters, no `_`). */
const prefixOf = (name: string) => name.split('_')[0]!;

/** `<prefix>__spare_<hash of name and template>`: one spare per worker database and template. */
export function spareName(name: string, template: string): string {
  const prefix = prefixOf(name);
  return `${prefix}__spare_${createHash('sha256').update(`${name}\0${template}`).digest('hex').slice(0, 20)}`;
}

/** `<prefix>__old_<random>`: a used database waiting for its drop. */
function oldName(name: string): string {
  return `${prefixOf(name)}__old_${randomBytes(10).toString('hex')}`;
}

/** Names this file gives to databases set aside or made ahead: ours while they carry our marker. */
export function isAsideName(name: string): boolean {
  return /^[a-z][a-z0-9]{0,15}__(old|spare)_[0-9a-f]{20}$/.test(name);
}

/** Background work per server and database name (state.ts); not awaited by the recreate that started it. */
const keyOf = (server: ServerInfo, name: string) => `${server.host}:${server.port}/${name}`;

/** Waits for the background work a recreate of `name` left (the old database's drop, the next spare). */
export async function settleRecreate(server: ServerInfo, name: string): Promise<void> {
  await recreateWork.get(keyOf(server, name));
}

/**
 * Replaces `name` with a fresh clone of `template`. `force`: connections still open to the used
 * database are ended (a previous test file's pool); without it such connections make it fail.
 */
export async function recreateDatabase(
  dialect: Dialect,
  admin: SqlClient,
  server: ServerInfo,
  template: string,
  name: string,
  run?: string,
  force = false,
): Promise<void> {
  if (!dialect.renameDatabases) return cloneInto(dialect, admin, server, template, name, run, force);
  const key = keyOf(server, name);
  const started = performance.now();
  await recreateWork.get(key);
  const waited = performance.now() - started;
  const existing = await dialect.readMarker(admin, name);
  // Missing (a first clone: no spare yet, a database cloned once needs none), or not ours
  // (cloneInto says so, and touches nothing that is not ours).
  if (!existing) return cloneInto(dialect, admin, server, template, name, run, force);
  const owner = liveOtherOwner(existing);
  if (owner !== undefined) throw heldByOther(name, existing, owner);
  if (force || ownerGone(existing, pidAlive)) await dialect.endConnections!(admin, name);
  const old = oldName(name);
  const spare = spareName(name, template);
  // Only a spare this process made: another's may be a clone of a template since rebuilt.
  let usedSpare = (await dialect.readMarker(admin, spare))?.pid === process.pid;
  if (usedSpare) {
    await dialect
      .renameDatabases(admin, [
        [name, old],
        [spare, name],
      ])
      .catch((e: unknown) => {
        if ((e as FastTestDbError).code === 'DATABASE_IN_USE') throw e;
        log('spare %s not taken: %s', spare, (e as Error).message);
        usedSpare = false;
      });
  }
  if (!usedSpare) await dialect.renameDatabases(admin, [[name, old]]);
  try {
    if (!usedSpare) await cloneInto(dialect, admin, server, template, name, run);
    log(
      '%s: %s in %d ms (%d ms waiting for the previous background work)',
      name,
      usedSpare ? 'spare taken' : 'cloned',
      Math.round(performance.now() - started),
      Math.round(waited),
    );
  } finally {
    // The used database is dropped even when its replacement failed.
    background(dialect, server, template, name, run, [old]);
  }
}

/** Drops `drops`, then makes the next spare, on a connection of its own; failures are logged, not thrown. */
function background(dialect: Dialect, server: ServerInfo, template: string, name: string, run: string | undefined, drops: string[]): void {
  const key = keyOf(server, name);
  const work = withClient(dialect, server, async (admin) => {
    for (const old of drops) await dialect.drop(admin, old, { force: true });
    await sweep(dialect, admin, server, name);
    const spare = spareName(name, template);
    if ((await dialect.readMarker(admin, spare)) === undefined) {
      const make = () => dialect.clone(admin, server, template, spare, newMarker('database', { run, template }));
      // A spare's clone killed before its rename left its staging name behind.
      await make().catch(async (e) => {
        if (!(await clearStaging(dialect, admin, spare))) throw e;
        await make();
      });
      if (!server.owned) await dialect.tuneDatabase(admin, spare);
    }
  }).catch((e: unknown) => log('background work for %s: %s', name, (e as Error).message));
  const tracked = work.finally(() => {
    if (recreateWork.get(key) === tracked) recreateWork.delete(key);
  });
  recreateWork.set(key, tracked);
}

/** Once per process and prefix: what killed processes set aside or made ahead is dropped. */
async function sweep(dialect: Dialect, admin: SqlClient, server: ServerInfo, name: string): Promise<void> {
  const prefix = prefixOf(name);
  const key = `${server.host}:${server.port}/${prefix}`;
  if (leftoversSwept.has(key)) return;
  leftoversSwept.add(key);
  for (const { name: leftover, marker } of await dialect.listOurs(admin, `${prefix}__`)) {
    if (!isAsideName(leftover) || !ownerGone(marker, pidAlive)) continue;
    log('dropping %s, left by process %d', leftover, marker.pid);
    await dialect.drop(admin, leftover, { force: true });
  }
}

/** destroy(): the background work finished, and this process's spare for `name` dropped. */
export async function releaseSpare(dialect: Dialect, admin: SqlClient, server: ServerInfo, template: string, name: string): Promise<void> {
  await settleRecreate(server, name);
  if (!dialect.renameDatabases) return;
  const spare = spareName(name, template);
  const marker = await dialect.readMarker(admin, spare);
  if (marker && marker.pid === process.pid) await dialect.drop(admin, spare, { force: true });
}
