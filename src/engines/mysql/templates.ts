/**
 * MySQL and MariaDB: database = schema. There are no template databases, so a template is
 * captured once (DDL in foreign-key-safe order, views, routines, triggers, events, and which
 * tables hold seed rows) into a table inside the template itself, and every clone replays that
 * capture in one multi-statement round trip, copying seed rows server-side with INSERT ... SELECT.
 *
 * Our marker is a stored procedure `_fast_test_db_marker` whose COMMENT holds the marker JSON:
 * MySQL has no schema comments, a routine dies with its schema (no stale registry rows that could
 * later vouch for someone else's schema of the same name), and ORMs that diff or push tables
 * (Prisma, Drizzle, TypeORM) never see it.
 *
 * There is no database rename, so a database cannot be built under another name and moved into
 * place. Instead it is never without a marker: MariaDB (10.5+) takes the marker as the schema's
 * COMMENT in the CREATE DATABASE itself, and the routine follows in the same round trip, before any
 * table, so a clone script that runs on after its client was killed builds inside a marked schema.
 */
import { FastTestDbError, messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import type { ServerInfo } from '../../types.js';
import { pausePoint, pauseRequested } from '../../util/debug-pause.js';
import { driverErrorKind } from '../errors.js';
import type { TemplateStore } from '../engine.js';
import { encodeMarker, type Marker, type TemplateState } from '../marker.js';
import { CAPTURE_TABLE, capture, type Captures, cloneStatements, hasCaptureTable, RESTORE_SESSION, type Capture } from './capture.js';
import { runScript, type MysqlClient } from './client.js';
import { createMarked, hasSchemaComments, MARKER_ROUTINE, readMarker } from './marker.js';
import { id, lit, qual } from './quote.js';

const log = logger('mysql');

async function createEmpty(admin: MysqlClient, name: string, marker: Marker): Promise<void> {
  try {
    await runScript(admin, createMarked(name, marker, hasSchemaComments(admin)));
  } catch (e) {
    if (driverErrorKind(e) !== 'database-exists') await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`).catch(() => undefined);
    throw e;
  }
}

async function drop(admin: MysqlClient, name: string, opts: { force?: boolean }): Promise<void> {
  if (opts.force) {
    const rows = await admin.query<{ id: number | string }>(
      `SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()`,
      [name],
    );
    for (const r of rows) await admin.query(`KILL CONNECTION ${Number(r.id)}`).catch((e) => log(`kill ${r.id}: ${messageOf(e)}`));
  }
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`);
  } catch (e) {
    if (driverErrorKind(e) === 'in-use' || /lock wait timeout/i.test(messageOf(e)))
      throw new FastTestDbError(
        'DATABASE_IN_USE',
        `could not drop ${name}: a connection holds an open transaction on it`,
        'close your connections first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true }',
        { cause: e },
      );
    throw e;
  }
}

async function templateState(admin: MysqlClient, name: string): Promise<TemplateState> {
  const marker = await readMarker(admin, name);
  if (marker === undefined) return 'missing';
  if (marker === null || marker.kind !== 'template') return 'unmarked';
  if (!(await hasCaptureTable(admin, name))) return 'incomplete';
  const rows = await admin.query(`SELECT 1 AS one FROM ${qual(name, CAPTURE_TABLE)} WHERE id = 1`);
  return rows.length ? 'complete' : 'incomplete';
}

async function completeTemplate(captures: Captures, admin: MysqlClient, server: ServerInfo, name: string): Promise<void> {
  const started = performance.now();
  // SHOW CREATE VIEW qualifies names outside the current schema; inside it, they come out bare.
  await admin.query(`USE ${id(name)}`);
  let cap: Capture;
  try {
    cap = await capture(admin, name);
  } finally {
    await admin.query(`USE ${id(server.adminDatabase || 'information_schema')}`).catch(() => undefined);
  }
  const marker = await readMarker(admin, name);
  if (!marker)
    throw new FastTestDbError(
      'NOT_OURS',
      `template ${name} lost its marker during the build`,
      'something else dropped or replaced it: look for another process using the same prefix',
    );
  const seeded = cap.tables.filter((t) => t.seedColumns).map((t) => t.name);
  // ALTER keeps the marker in place (no moment without one, unlike DROP + CREATE).
  await admin.query(`ALTER PROCEDURE ${qual(name, MARKER_ROUTINE)} COMMENT ${lit(encodeMarker({ ...marker, seeded }))}`);
  // One INSERT of the whole capture is atomic: a template is complete exactly when this row exists.
  await admin.query(
    `CREATE TABLE ${qual(name, CAPTURE_TABLE)} (id INT PRIMARY KEY, body LONGTEXT NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  );
  await admin.query(`INSERT INTO ${qual(name, CAPTURE_TABLE)} (id, body) VALUES (1, ?)`, [JSON.stringify(cap)]);
  captures.remember(name, cap);
  log(
    `captured template ${name}: ${cap.tables.length} tables, ${cap.views.length} views, ${cap.routines.length} routines, ${cap.triggers.length} triggers, ${cap.events.length} events in ${Math.round(performance.now() - started)} ms`,
  );
}

async function clone(
  captures: Captures,
  admin: MysqlClient,
  server: ServerInfo,
  template: string,
  name: string,
  marker: Marker,
): Promise<void> {
  const cap = await captures.load(admin, template);
  if (!cap)
    throw new FastTestDbError(
      'TEMPLATE_BROKEN',
      `template ${template} has no capture (it is incomplete or was dropped)`,
      'build the template again (the next createTestDatabase() call does)',
    );
  const statements = cloneStatements(cap, template, name, { ...marker, template }, hasSchemaComments(admin));
  try {
    if (pauseRequested('clone:created')) {
      // Test-only: stop with the schema created and marked, the rest of the script not yet sent.
      await runScript(admin, statements.slice(0, 3));
      await pausePoint('clone:created');
      await runScript(admin, statements.slice(3));
    } else await runScript(admin, statements);
  } catch (e) {
    // Leave nothing half-built behind, and put the shared connection back as it was.
    await admin.query(RESTORE_SESSION).catch(() => undefined);
    // CREATE DATABASE failing means the schema is someone else's (or a racing clone's): leave it.
    if (driverErrorKind(e) !== 'database-exists') await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`).catch(() => undefined);
    throw e;
  } finally {
    await admin.query(`USE ${id(server.adminDatabase || 'information_schema')}`).catch(() => undefined);
  }
}

/** The template store; the captures it reads are cached in `captures`, which reset() reads too. */
export function templateStore(captures: Captures): TemplateStore<MysqlClient> {
  return {
    staged: false,
    // A schema with sessions copies as well as one without.
    clonesNeedNoSessions: false,
    templateState,
    createEmpty,
    // MySQL has no UNLOGGED tables; `unlogged` is a PostgreSQL option.
    completeTemplate: (admin, server, name) => completeTemplate(captures, admin, server, name),
    clone: (admin, server, template, name, marker) => clone(captures, admin, server, template, name, marker),
    drop,
  };
}
