/**
 * MySQL/MariaDB: our marker is a stored procedure `_fast_test_db_marker` whose COMMENT holds the
 * marker JSON (MySQL's databases take no COMMENT), plus, on MariaDB, the schema's COMMENT for the
 * instant between CREATE DATABASE and the routine.
 */
import { decodeMarker, encodeMarker, MARKER_TAG, type Marker } from '../marker.js';
import type { MarkerStore } from '../engine.js';
import type { MysqlClient } from './client.js';
import { id, lit, qual } from './quote.js';

export const MARKER_ROUTINE = '_fast_test_db_marker';

async function schemaExists(admin: MysqlClient, name: string): Promise<boolean> {
  // information_schema compares case-insensitively; schema names on Linux are case-sensitive.
  const rows = await admin.query<{ s: string }>(`SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`, [name]);
  return rows.some((r) => r.s === name);
}

/** MariaDB 10.5+ keeps a comment per schema; MySQL has none. */
export function hasSchemaComments(c: MysqlClient): boolean {
  return c.flavor === 'mariadb';
}

/** The creation marker MariaDB holds in the schema comment, for the instant before the routine exists. */
async function schemaCommentMarker(admin: MysqlClient, name: string): Promise<Marker | null> {
  if (!hasSchemaComments(admin)) return null;
  const rows = await admin.query<{ s: string; c: string | null }>(
    `SELECT SCHEMA_NAME AS s, SCHEMA_COMMENT AS c FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`,
    [name],
  );
  return decodeMarker(rows.find((r) => r.s === name)?.c);
}

export async function readMarker(admin: MysqlClient, name: string): Promise<Marker | null | undefined> {
  if (!(await schemaExists(admin, name))) return undefined;
  const rows = await admin.query<{ s: string; c: string | null }>(
    `SELECT ROUTINE_SCHEMA AS s, ROUTINE_COMMENT AS c FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? AND ROUTINE_NAME = ? AND ROUTINE_TYPE = 'PROCEDURE'`,
    [name, MARKER_ROUTINE],
  );
  const row = rows.find((r) => r.s === name);
  return row ? decodeMarker(row.c) : schemaCommentMarker(admin, name);
}

export async function listOurs(admin: MysqlClient, prefix: string): Promise<Array<{ name: string; marker: Marker }>> {
  const rows = await admin.query<{ s: string; c: string | null }>(
    `SELECT ROUTINE_SCHEMA AS s, ROUTINE_COMMENT AS c FROM information_schema.ROUTINES WHERE ROUTINE_NAME = ? AND ROUTINE_TYPE = 'PROCEDURE'`,
    [MARKER_ROUTINE],
  );
  const out: Array<{ name: string; marker: Marker }> = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (!r.s.startsWith(prefix)) continue;
    seen.add(r.s);
    const marker = decodeMarker(r.c);
    if (marker) out.push({ name: r.s, marker });
  }
  // Schemas whose creation was cut off before the routine: marked by their comment alone.
  if (hasSchemaComments(admin)) {
    const schemas = await admin.query<{ s: string; c: string | null }>(
      `SELECT SCHEMA_NAME AS s, SCHEMA_COMMENT AS c FROM information_schema.SCHEMATA WHERE SCHEMA_COMMENT LIKE ?`,
      [`${MARKER_TAG} %`],
    );
    for (const r of schemas) {
      const marker = r.s.startsWith(prefix) && !seen.has(r.s) ? decodeMarker(r.c) : null;
      if (marker) out.push({ name: r.s, marker });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** A procedure needs only CREATE ROUTINE, unlike a function under binary logging. */
function markerStatement(schema: string, marker: Marker): string {
  return `CREATE PROCEDURE ${qual(schema, MARKER_ROUTINE)}() COMMENT ${lit(encodeMarker(marker))} BEGIN END`;
}

/** MariaDB's limit for a schema comment. */
const MAX_SCHEMA_COMMENT = 1024;

/**
 * CREATE DATABASE (with the marker as its comment where the server keeps one), then the marker
 * routine: one round trip, before anything else. CREATE DATABASE fails on an existing schema, so we
 * never put our marker into someone else's.
 */
export function createMarked(name: string, marker: Marker, schemaComments: boolean, charset?: string, collation?: string): string[] {
  const text = encodeMarker(marker);
  const comment = schemaComments && text.length <= MAX_SCHEMA_COMMENT ? ` COMMENT ${lit(text)}` : '';
  const create =
    `CREATE DATABASE ${id(name)}` +
    (charset ? ` CHARACTER SET ${lit(charset)}` : '') +
    (collation ? ` COLLATE ${lit(collation)}` : '') +
    comment;
  return [create, markerStatement(name, marker)];
}

export const markers: MarkerStore<MysqlClient> = {
  // ALTER keeps the marker in place (no moment without one, unlike DROP + CREATE).
  async writeMarker(admin, name, marker) {
    await admin.query(`ALTER PROCEDURE ${qual(name, MARKER_ROUTINE)} COMMENT ${lit(encodeMarker(marker))}`);
  },
  readMarker,
  listOurs,
  // Nothing is built under another name: a schema is created with its marker.
  listStaging: async () => [],
};
