/**
 * What a killed creation leaves under a staging name (see stagingName): removed by the next process
 * that wants the same final name, unless its creator is still at work.
 */
import type { Dialect, SqlClient } from '../engines/dialect.js';
import { ownerGone, stagingName } from '../engines/dialect.js';
import { FastTestDbError } from '../errors.js';
import { logger } from '../util/log.js';
import { pidAlive } from '../server/os/lock.js';
import { sleep } from '../util/sleep.js';

const log = logger('staging');

/** A staging database lives for milliseconds; one this old was left by a creator that died elsewhere. */
const STAGING_MAX_AGE_MS = 60_000;

/** Drops the leftover staging database of `name`, if any. Returns whether there was one. */
export async function clearStaging(dialect: Dialect, admin: SqlClient, name: string): Promise<boolean> {
  if (!dialect.staged) return false;
  const staging = stagingName(name);
  let marker = await dialect.readMarker(admin, staging);
  if (marker === undefined) return false;
  if (marker === null) {
    // Its creator may be between CREATE DATABASE and the marker: look again before calling it a leftover.
    await sleep(300);
    marker = await dialect.readMarker(admin, staging);
    if (marker === undefined) return false;
  }
  const stale =
    marker === null ||
    marker.pid === process.pid ||
    ownerGone(marker, pidAlive) ||
    Date.now() - Date.parse(marker.created) > STAGING_MAX_AGE_MS;
  if (!stale) throw sharedWorkerId(name);
  log('dropping %s, left by a creation of %s that was killed', staging, name);
  await dialect.drop(admin, staging, { force: true });
  return true;
}

export function sharedWorkerId(name: string): FastTestDbError {
  return new FastTestDbError(
    'DATABASE_IN_USE',
    `another process created ${name} at the same moment: two processes are using the same worker id`,
    'give each process its own worker id (the worker option or FAST_TEST_DB_WORKER; runner variables such as VITEST_POOL_ID leak into child processes), or a suffix',
  );
}
