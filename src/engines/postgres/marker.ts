/**
 * PostgreSQL: our marker is the database's COMMENT. A database is created under its staging name
 * (ours by name alone), marked, and only then renamed into place, so that it is never unmarked.
 */
import { logger } from '../../util/log.js';
import { pausePoint } from '../../util/debug-pause.js';
import type { MarkerStore } from '../engine.js';
import { decodeMarker, encodeMarker, isStagingName, stagingName, type Marker } from '../marker.js';
import type { PgClient } from './client.js';
import { id, lit } from './quote.js';

const log = logger('postgres');

export async function readMarker(admin: PgClient, name: string): Promise<Marker | null | undefined> {
  const rows = await admin.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
    [name],
  );
  if (rows.length === 0) return undefined;
  return decodeMarker(rows[0]!.comment);
}

/** The marker of the database `db` is connected to. */
export async function readOwnMarker(db: PgClient): Promise<Marker | null> {
  const [row] = await db.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()`,
  );
  return decodeMarker(row?.comment);
}

export async function listOurs(admin: PgClient, prefix: string): Promise<Array<{ name: string; marker: Marker }>> {
  const rows = await admin.query<{ name: string; comment: string | null }>(
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE starts_with(datname, $1)`,
    [prefix],
  );
  return rows.flatMap((r) => {
    const marker = decodeMarker(r.comment);
    return marker ? [{ name: r.name, marker }] : [];
  });
}

export async function listStaging(admin: PgClient): Promise<string[]> {
  const rows = await admin.query<{ name: string }>(`SELECT datname AS name FROM pg_database WHERE strpos(datname, '__new_') > 0`);
  return rows.map((r) => r.name).filter(isStagingName);
}

/**
 * CREATE DATABASE and COMMENT ON DATABASE cannot share a transaction, so a database is created under
 * its staging name (ours by name alone), marked, and only then renamed into place: `name` never
 * exists unmarked, and a kill at any step leaves something the next run and `clean` recognise.
 */
export async function createStaged(
  admin: PgClient,
  name: string,
  step: 'clone' | 'template',
  create: string,
  marker: () => string,
): Promise<void> {
  const staging = stagingName(name);
  await admin.query(create);
  try {
    await pausePoint(`${step}:created`);
    await admin.query(`COMMENT ON DATABASE ${id(staging)} IS ${lit(marker())}`);
    await pausePoint(`${step}:marked`);
    await admin.query(`ALTER DATABASE ${id(staging)} RENAME TO ${id(name)}`);
  } catch (e) {
    // Leave nothing behind (the final name may have been taken meanwhile: 'database-exists', mapped by the caller).
    await admin
      .query(`DROP DATABASE IF EXISTS ${id(staging)}`)
      .catch((dropError) => log('could not drop %s: %s', staging, (dropError as Error).message));
    throw e;
  }
  await pausePoint(`${step}:renamed`);
}

export const markers: MarkerStore<PgClient> = {
  async writeMarker(admin, name, marker) {
    await admin.query(`COMMENT ON DATABASE ${id(name)} IS ${lit(encodeMarker(marker))}`);
  },
  readMarker,
  listOurs,
  listStaging,
};
