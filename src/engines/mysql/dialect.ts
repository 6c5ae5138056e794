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
import { createHash } from 'node:crypto';
import { driverErrorKind, FastTestDbError, messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import { quoteIdent, quoteLiteral, quoteQualified } from '../../util/quote.js';
import { MYSQL_DESCRIBE_SETTINGS, MYSQL_TUNED_EXPECT } from '../tuning.js';
import type { DescribeReport, ServerInfo } from '../../types.js';
import { pausePoint, pauseRequested } from '../../util/debug-pause.js';
import { encodeMarker, type Dialect, type Marker, type OpenSession, type TemplateState } from '../dialect.js';
import { CAPTURE_TABLE, capture, Captures, cloneStatements, hasCaptureTable, RESTORE_SESSION, type Capture } from './capture.js';
import { connectMysql, mysqlUrl, runScript, type MysqlClient } from './client.js';
import { createMarked, hasSchemaComments, listOurs, MARKER_ROUTINE, readMarker } from './marker.js';
import { resetSchema } from './reset.js';

const log = logger('mysql');
const id = (name: string) => quoteIdent('mysql', name);
const lit = (value: string) => quoteLiteral('mysql', value);
const qual = (...parts: string[]) => quoteQualified('mysql', ...parts);

/** How long a process waits for another one building the same template. */
const BUILD_LOCK_SECONDS = 600;

/** GET_LOCK names are limited to 64 characters. */
function lockName(key: string): string {
  const name = `fast-test-db:${key}`;
  return name.length <= 64 ? name : `fast-test-db:${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

async function withLock<T>(admin: MysqlClient, key: string, fn: () => Promise<T>): Promise<T> {
  const name = lockName(key);
  const rows = await admin.query<{ got: number | string | null }>(`SELECT GET_LOCK(${lit(name)}, ${BUILD_LOCK_SECONDS}) AS got`);
  const got = rows[0]?.got;
  if (got === null || got === undefined || Number(got) !== 1)
    throw new FastTestDbError(
      'LOCK_TIMEOUT',
      `waited ${BUILD_LOCK_SECONDS} s for lock "${name}" held by another process building the same template`,
      'look for a hung migration in another test process (SELECT * FROM information_schema.PROCESSLIST), or kill it',
    );
  try {
    return await fn();
  } finally {
    await admin.query(`SELECT RELEASE_LOCK(${lit(name)})`).catch((e) => log(`could not release ${name}: ${messageOf(e)}`));
  }
}

async function withFreeLock<T>(admin: MysqlClient, key: string, fn: () => Promise<T>): Promise<T | undefined> {
  const name = lockName(key);
  const rows = await admin.query<{ got: number | string | null }>(`SELECT GET_LOCK(${lit(name)}, 0) AS got`);
  if (Number(rows[0]?.got) !== 1) return undefined;
  try {
    return await fn();
  } finally {
    await admin.query(`SELECT RELEASE_LOCK(${lit(name)})`).catch((e) => log(`could not release ${name}: ${messageOf(e)}`));
  }
}

async function createEmpty(admin: MysqlClient, name: string, marker: Marker): Promise<void> {
  try {
    await runScript(admin, createMarked(name, marker, hasSchemaComments(admin)));
  } catch (e) {
    if (driverErrorKind(e) !== 'database-exists') await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`).catch(() => undefined);
    throw e;
  }
}

/** Over TCP a client matches '%', over the socket 'localhost': the login gets both, with every right. */
async function createLogin(admin: MysqlClient, user: string, password: string): Promise<void> {
  for (const host of ['%', 'localhost']) {
    const account = `${lit(user)}@${lit(host)}`;
    await admin.query(`CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${lit(password)}`);
    await admin.query(`ALTER USER ${account} IDENTIFIED BY ${lit(password)}`);
    await admin.query(`GRANT ALL PRIVILEGES ON *.* TO ${account}`);
  }
}

/** Client connections only: the server's own threads (InnoDB workers, the event scheduler) run as 'system user' or as daemons. */
async function sessions(admin: MysqlClient): Promise<OpenSession[]> {
  const rows = await admin.query<{ id: number | string; user: string; database: string | null; client: string | null }>(
    `SELECT ID AS id, USER AS user, DB AS \`database\`, HOST AS client FROM information_schema.PROCESSLIST
      WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Daemon', 'Binlog Dump') AND USER NOT IN ('system user', 'event_scheduler')
      ORDER BY ID`,
  );
  return rows.map((r) => ({ pid: Number(r.id), user: r.user, database: r.database ?? undefined, client: r.client ?? undefined }));
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

async function tuneDatabase(_admin: MysqlClient, name: string): Promise<void> {
  // MySQL has no per-schema durability settings, and a server we do not own is never changed
  // globally (no SET GLOBAL): what stays fast there is the clone and the dirty-table reset.
  log(`${name}: MySQL/MariaDB have no per-schema tuning; server settings left as they are`);
}

function normalize(name: string, value: string): string {
  if (name === 'innodb_doublewrite' || name === 'log_bin') return value === '0' ? 'OFF' : value === '1' ? 'ON' : value.toUpperCase();
  return value;
}

async function describe(admin: MysqlClient, server: ServerInfo): Promise<DescribeReport> {
  const [v] = await admin.query<{ v: string }>('SELECT VERSION() AS v');
  const version = v?.v ?? server.version;
  const rows = await admin.query<{ Variable_name: string; Value: string }>(
    `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${MYSQL_DESCRIBE_SETTINGS.map(lit).join(', ')})`,
  );
  const settings: Record<string, string> = {};
  for (const r of rows) settings[r.Variable_name] = String(r.Value);
  const untuned: DescribeReport['untuned'] = {};
  for (const [k, expected] of Object.entries(MYSQL_TUNED_EXPECT)) {
    const actual = settings[k] === undefined ? '(missing)' : normalize(k, settings[k]!);
    if (actual !== expected) untuned[k] = { expected, actual };
  }
  return {
    engine: 'mysql',
    flavor: /mariadb/i.test(version) ? 'mariadb' : 'mysql',
    version,
    owned: server.owned,
    provider: server.provider,
    tuned: Object.keys(untuned).length === 0,
    settings,
    untuned,
  };
}

/**
 * MariaDB names each session's thread in PROCESSLIST.TID (10.5+). MySQL has no such column, and the
 * MySQL we start runs without performance_schema, so it is never paired (cpu-pairing.ts pairingCpu).
 * A server without TID gives no tasks, and so no pairing.
 */
async function sessionTasks(admin: MysqlClient, name: string): Promise<number[]> {
  const rows = await admin
    .query<{ tid: number | string | null }>(
      `SELECT TID AS tid FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()`,
      [name],
    )
    .catch(() => []);
  return rows.map((r) => Number(r.tid)).filter((t) => t > 0);
}

export type MysqlDialect = Dialect<MysqlClient>;

/** One MySQL/MariaDB dialect; the captures it reads are cached on it. */
export function createMysqlDialect(): MysqlDialect {
  const captures = new Captures();
  return {
    engine: 'mysql',
    staged: false,
    listStaging: async () => [],
    connect: connectMysql,
    url: mysqlUrl,
    withLock,
    withFreeLock,
    templateState,
    createEmpty,
    // MySQL has no UNLOGGED tables; `unlogged` is a PostgreSQL option.
    completeTemplate: (admin, server, name) => completeTemplate(captures, admin, server, name),
    clone: (admin, server, template, name, marker) => clone(captures, admin, server, template, name, marker),
    drop,
    // ALTER keeps the marker in place (no moment without one, unlike DROP + CREATE).
    writeMarker: async (admin, name, marker) => {
      await admin.query(`ALTER PROCEDURE ${qual(name, MARKER_ROUTINE)} COMMENT ${lit(encodeMarker(marker))}`);
    },
    readMarker,
    listOurs,
    tuneDatabase,
    createLogin,
    grantDatabase: async () => undefined, // createLogin already grants every database
    reset: (db, name, keep) => resetSchema(db, name, keep, captures),
    describe,
    sessionTasks,
    sessions,
  };
}
