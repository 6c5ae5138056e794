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
import { classifyDriverError, FastTestDbError, messageOf } from '../errors.js';
import { logger } from '../log.js';
import { loadPeer } from '../peer.js';
import { quoteIdent, quoteLiteral, quoteQualified } from '../quote.js';
import { MYSQL_DESCRIBE_SETTINGS, MYSQL_TUNED_EXPECT } from '../tuning.js';
import type { DescribeReport, Flavor, ResetReport, ServerInfo } from '../types.js';
import { pausePoint, pauseRequested } from '../debug-pause.js';
import { decodeMarker, encodeMarker, MARKER_TAG, type Dialect, type Marker, type SqlClient, type TemplateState } from './dialect.js';

const log = logger('mysql');
const id = (name: string) => quoteIdent('mysql', name);
const lit = (value: string) => quoteLiteral('mysql', value);
const qual = (...parts: string[]) => quoteQualified('mysql', ...parts);

export const MARKER_ROUTINE = '_fast_test_db_marker';
export const CAPTURE_TABLE = '_fast_test_db_capture';
/** How long DROP DATABASE waits for a metadata lock held by an open transaction before giving up. */
const LOCK_WAIT_SECONDS = 5;
/** How long a process waits for another one building the same template. */
const BUILD_LOCK_SECONDS = 600;
/** Statements per round trip stay below this many characters (max_allowed_packet is 16M on MariaDB). */
const MAX_SCRIPT_CHARS = 4 * 1024 * 1024;

/** The part of mysql2/promise's Connection we use. */
interface MysqlConnection {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
  destroy(): void;
  on(event: 'error', fn: (e: Error) => void): void;
}

export interface MysqlClient extends SqlClient {
  readonly raw: MysqlConnection;
  readonly flavor: Flavor;
  /** Runs statements in one round trip; returns one result per statement. */
  multi(statements: string[]): Promise<unknown[]>;
}

function isMysqlClient(c: SqlClient): c is MysqlClient {
  return typeof (c as MysqlClient).multi === 'function';
}

function brief(sql: string): string {
  return sql.length > 200 ? sql.slice(0, 200) + '…' : sql;
}

async function connect(server: ServerInfo, database?: string): Promise<MysqlClient> {
  const mysql = await loadPeer<any>('mysql2/promise', 'MySQL/MariaDB support');
  const createConnection = mysql.createConnection ?? mysql.default?.createConnection;
  const where = server.socket ? server.socket : `${server.host}:${server.port}`;
  let raw: MysqlConnection;
  try {
    raw = await createConnection({
      ...(server.socket ? { socketPath: server.socket } : { host: server.host, port: server.port }),
      user: server.user,
      password: server.password,
      database: database ?? server.adminDatabase,
      // Clones replay a whole captured schema in one round trip; every name in it is quoted.
      multipleStatements: true,
      charset: 'utf8mb4',
      // Values we read back (AUTO_INCREMENT, checksums) may exceed 2^53.
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    });
  } catch (e) {
    throw classifyDriverError(e, `connecting to MySQL/MariaDB at ${where} as ${server.user}`);
  }
  // A connection killed server-side (destroy with force) must not crash the process.
  raw.on('error', (e) => log(`connection error: ${e.message}`));
  const run = async (sql: string, params?: unknown[]) => {
    log(brief(sql));
    try {
      return (await raw.query(sql, params))[0];
    } catch (e) {
      throw classifyDriverError(e, `MySQL: ${brief(sql)}`);
    }
  };
  let flavor: Flavor = server.flavor === 'mariadb' ? 'mariadb' : 'mysql';
  if (server.flavor !== 'mariadb' && server.flavor !== 'mysql') {
    const rows = (await run('SELECT VERSION() AS v')) as Array<{ v: string }>;
    flavor = /mariadb/i.test(rows[0]?.v ?? '') ? 'mariadb' : 'mysql';
  }
  // A DROP DATABASE behind someone's open transaction fails fast instead of waiting a year.
  await run(`SET SESSION lock_wait_timeout = ${LOCK_WAIT_SECONDS}`);
  return {
    raw,
    flavor,
    async query<T>(sql: string, params?: unknown[]) {
      return (await run(sql, params)) as T[];
    },
    async multi(statements: string[]) {
      // One statement comes back bare, several as an array of per-statement results.
      return statements.length === 1 ? [await run(statements[0]!)] : ((await run(statements.join(';\n'))) as unknown[]);
    },
    close: () => raw.end().catch(() => raw.destroy()),
  };
}

function url(server: ServerInfo, database: string): string {
  const auth = encodeURIComponent(server.user) + (server.password ? ':' + encodeURIComponent(server.password) : '');
  const host = server.host.includes(':') && !server.host.startsWith('[') ? `[${server.host}]` : server.host;
  return `mysql://${auth}@${host}:${server.port}/${encodeURIComponent(database)}`;
}

/** GET_LOCK names are limited to 64 characters. */
function lockName(key: string): string {
  const name = `fast-test-db:${key}`;
  return name.length <= 64 ? name : `fast-test-db:${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

async function withLock<T>(admin: SqlClient, key: string, fn: () => Promise<T>): Promise<T> {
  const name = lockName(key);
  const rows = await admin.query<{ got: number | string | null }>(`SELECT GET_LOCK(${lit(name)}, ${BUILD_LOCK_SECONDS}) AS got`);
  const got = rows[0]?.got;
  if (got === null || got === undefined || Number(got) !== 1)
    throw new FastTestDbError('LOCK_TIMEOUT', `waited ${BUILD_LOCK_SECONDS} s for lock "${name}" held by another process building the same template`, 'look for a hung migration in another test process (SELECT * FROM information_schema.PROCESSLIST), or kill it');
  try {
    return await fn();
  } finally {
    await admin.query(`SELECT RELEASE_LOCK(${lit(name)})`).catch((e) => log(`could not release ${name}: ${messageOf(e)}`));
  }
}

// ---------------------------------------------------------------------------------------------
// Marker

async function schemaExists(admin: SqlClient, name: string): Promise<boolean> {
  // information_schema compares case-insensitively; schema names on Linux are case-sensitive.
  const rows = await admin.query<{ s: string }>(`SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`, [name]);
  return rows.some((r) => r.s === name);
}

/** MariaDB 10.5+ keeps a comment per schema; MySQL has none. */
function hasSchemaComments(c: SqlClient): boolean {
  return isMysqlClient(c) && c.flavor === 'mariadb';
}

/** The creation marker MariaDB holds in the schema comment, for the instant before the routine exists. */
async function schemaCommentMarker(admin: SqlClient, name: string): Promise<Marker | null> {
  if (!hasSchemaComments(admin)) return null;
  const rows = await admin.query<{ s: string; c: string | null }>(`SELECT SCHEMA_NAME AS s, SCHEMA_COMMENT AS c FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`, [name]);
  return decodeMarker(rows.find((r) => r.s === name)?.c);
}

async function readMarker(admin: SqlClient, name: string): Promise<Marker | null | undefined> {
  if (!(await schemaExists(admin, name))) return undefined;
  const rows = await admin.query<{ s: string; c: string | null }>(
    `SELECT ROUTINE_SCHEMA AS s, ROUTINE_COMMENT AS c FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? AND ROUTINE_NAME = ? AND ROUTINE_TYPE = 'PROCEDURE'`,
    [name, MARKER_ROUTINE],
  );
  const row = rows.find((r) => r.s === name);
  return row ? decodeMarker(row.c) : schemaCommentMarker(admin, name);
}

async function listOurs(admin: SqlClient, prefix: string): Promise<Array<{ name: string; marker: Marker }>> {
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
    const schemas = await admin.query<{ s: string; c: string | null }>(`SELECT SCHEMA_NAME AS s, SCHEMA_COMMENT AS c FROM information_schema.SCHEMATA WHERE SCHEMA_COMMENT LIKE ?`, [`${MARKER_TAG} %`]);
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
function createMarked(name: string, marker: Marker, schemaComments: boolean, charset?: string, collation?: string): string[] {
  const text = encodeMarker(marker);
  const comment = schemaComments && text.length <= MAX_SCHEMA_COMMENT ? ` COMMENT ${lit(text)}` : '';
  const create = `CREATE DATABASE ${id(name)}` + (charset ? ` CHARACTER SET ${lit(charset)}` : '') + (collation ? ` COLLATE ${lit(collation)}` : '') + comment;
  return [create, markerStatement(name, marker)];
}

async function createEmpty(admin: SqlClient, name: string, marker: Marker): Promise<void> {
  try {
    await runScript(admin, createMarked(name, marker, hasSchemaComments(admin)));
  } catch (e) {
    if (((e as { cause?: { code?: string } }).cause?.code ?? '') !== 'ER_DB_CREATE_EXISTS') await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`).catch(() => undefined);
    throw e;
  }
}

async function drop(admin: SqlClient, name: string, opts: { force?: boolean }): Promise<void> {
  if (opts.force) {
    const rows = await admin.query<{ id: number | string }>(`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()`, [name]);
    for (const r of rows) await admin.query(`KILL CONNECTION ${Number(r.id)}`).catch((e) => log(`kill ${r.id}: ${messageOf(e)}`));
  }
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`);
  } catch (e) {
    const err = e as FastTestDbError;
    if (err.code === 'DATABASE_IN_USE' || /lock wait timeout/i.test(err.message))
      throw new FastTestDbError('DATABASE_IN_USE', `could not drop ${name}: a connection holds an open transaction on it`, 'close your connections first (dataSource.destroy(), prisma.$disconnect(), pool.end()), or pass { force: true }', { cause: e });
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Capture and clone

/** A statement plus the session settings it was created under (routines, triggers, views, events). */
interface Stored {
  name: string;
  sql: string;
  sqlMode?: string;
  collation?: string;
  timeZone?: string;
  /** Triggers: the table they belong to. */
  table?: string;
}

interface CapturedTable {
  name: string;
  create: string;
  /** Columns copied for seed rows (generated columns left out); absent when the table was empty. */
  seedColumns?: string[];
  autoIncrement: number | null;
}

export interface Capture {
  version: 1;
  charset: string;
  collation: string;
  tables: CapturedTable[];
  views: Stored[];
  routines: Stored[];
  triggers: Stored[];
  events: Stored[];
}

/** Drops the DEFINER clause so that replaying works for any user and the clone belongs to it. */
export function stripDefiner(sql: string): string {
  return sql.replace(/^(\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:ALGORITHM\s*=\s*\w+\s+)?)DEFINER\s*=\s*(?:`(?:[^`]|``)*`|'(?:[^']|'')*'|[^\s@]+)(?:@(?:`(?:[^`]|``)*`|'(?:[^']|'')*'|[^\s]+))?\s+/i, '$1');
}

/** Orders names so that each comes after those it depends on; cycles keep their input order. */
export function dependencyOrder(names: string[], deps: (name: string) => string[]): string[] {
  const out: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (n: string) => {
    if (state.get(n)) return;
    state.set(n, 'visiting');
    for (const d of deps(n)) if (d !== n && names.includes(d)) visit(d);
    state.set(n, 'done');
    out.push(n);
  };
  for (const n of names) visit(n);
  return out;
}

/** The first column of a SHOW CREATE result whose name starts with `Create` or `SQL Original`. */
function createText(row: Record<string, unknown>): string {
  for (const [k, v] of Object.entries(row)) if ((k.startsWith('Create ') || k === 'SQL Original Statement') && typeof v === 'string') return v;
  throw new FastTestDbError('QUERY_FAILED', `unexpected SHOW CREATE result: ${Object.keys(row).join(', ')}`, 'report this with your server version');
}

async function capture(db: SqlClient, schema: string): Promise<Capture> {
  const [info] = await db.query<{ cs: string; co: string }>(`SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`, [schema]);
  const objects = await db.query<{ n: string; t: string; ai: string | number | null }>(
    `SELECT TABLE_NAME AS n, TABLE_TYPE AS t, AUTO_INCREMENT AS ai FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`,
    [schema],
  );
  const baseNames = objects.filter((o) => o.t === 'BASE TABLE' && o.n !== CAPTURE_TABLE).map((o) => o.n);
  const fks = await db.query<{ t: string; r: string }>(
    `SELECT TABLE_NAME AS t, REFERENCED_TABLE_NAME AS r FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND UNIQUE_CONSTRAINT_SCHEMA = ?`,
    [schema, schema],
  );
  const refs = new Map<string, string[]>();
  for (const fk of fks) refs.set(fk.t, [...(refs.get(fk.t) ?? []), fk.r]);
  const generated = await db.query<{ t: string; c: string; x: string }>(
    `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, EXTRA AS x FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [schema],
  );
  const columns = new Map<string, string[]>();
  for (const g of generated) {
    // DEFAULT_GENERATED (MySQL) marks expression defaults, which are ordinary columns.
    if (/\b(VIRTUAL|STORED|PERSISTENT) GENERATED\b/i.test(g.x) || /^(VIRTUAL|PERSISTENT)$/i.test(g.x)) continue;
    columns.set(g.t, [...(columns.get(g.t) ?? []), g.c]);
  }
  const ordered = dependencyOrder(baseNames, (n) => refs.get(n) ?? []);
  const tables: CapturedTable[] = [];
  const hasRows = ordered.length
    ? await db.query<{ n: string; r: number | string }>(ordered.map((n) => `SELECT ${lit(n)} AS n, EXISTS(SELECT 1 FROM ${qual(schema, n)}) AS r`).join(' UNION ALL '))
    : [];
  const seeded = new Set(hasRows.filter((r) => Number(r.r) === 1).map((r) => r.n));
  for (const n of ordered) {
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE TABLE ${qual(schema, n)}`);
    const ai = objects.find((o) => o.n === n)?.ai;
    tables.push({
      name: n,
      create: createText(row!),
      ...(seeded.has(n) ? { seedColumns: columns.get(n) ?? [] } : {}),
      autoIncrement: ai === null || ai === undefined ? null : Number(ai),
    });
  }

  const viewNames = objects.filter((o) => o.t === 'VIEW').map((o) => o.n);
  const viewSql = new Map<string, Stored>();
  for (const n of viewNames) {
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE VIEW ${qual(schema, n)}`);
    viewSql.set(n, { name: n, sql: stripDefiner(createText(row!)), collation: String(row!['collation_connection'] ?? '') || undefined });
  }
  // A view's text names the views it reads from in backquotes.
  const views = dependencyOrder(viewNames, (n) => viewNames.filter((o) => o !== n && viewSql.get(n)!.sql.includes('`' + o.replace(/`/g, '``') + '`'))).map((n) => viewSql.get(n)!);

  const routines: Stored[] = [];
  const routineRows = await db.query<{ n: string; t: string }>(
    `SELECT ROUTINE_NAME AS n, ROUTINE_TYPE AS t FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? ORDER BY ROUTINE_TYPE, ROUTINE_NAME`,
    [schema],
  );
  for (const r of routineRows) {
    if (r.n === MARKER_ROUTINE) continue;
    const kind = r.t === 'FUNCTION' ? 'FUNCTION' : r.t === 'PACKAGE' || r.t === 'PACKAGE BODY' ? r.t : 'PROCEDURE';
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE ${kind} ${qual(schema, r.n)}`);
    routines.push({ name: r.n, sql: stripDefiner(createText(row!)), sqlMode: String(row!['sql_mode'] ?? ''), collation: String(row!['collation_connection'] ?? '') || undefined });
  }

  const triggers: Stored[] = [];
  const triggerRows = await db.query<{ n: string; t: string }>(
    `SELECT TRIGGER_NAME AS n, EVENT_OBJECT_TABLE AS t FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? ORDER BY EVENT_OBJECT_TABLE, ACTION_ORDER`,
    [schema],
  );
  for (const t of triggerRows) {
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE TRIGGER ${qual(schema, t.n)}`);
    triggers.push({ name: t.n, table: t.t, sql: stripDefiner(createText(row!)), sqlMode: String(row!['sql_mode'] ?? ''), collation: String(row!['collation_connection'] ?? '') || undefined });
  }

  const events: Stored[] = [];
  const eventRows = await db.query<{ n: string }>(`SELECT EVENT_NAME AS n FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ? ORDER BY EVENT_NAME`, [schema]);
  for (const e of eventRows) {
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE EVENT ${qual(schema, e.n)}`);
    events.push({
      name: e.n,
      sql: stripDefiner(createText(row!)),
      sqlMode: String(row!['sql_mode'] ?? ''),
      collation: String(row!['collation_connection'] ?? '') || undefined,
      timeZone: String(row!['time_zone'] ?? '') || undefined,
    });
  }
  return { version: 1, charset: info?.cs ?? 'utf8mb4', collation: info?.co ?? '', tables, views, routines, triggers, events };
}

/** `SET SESSION ...` for a stored object's creation settings. */
function sessionFor(o: Stored): string[] {
  const sets: string[] = [];
  if (o.sqlMode !== undefined) sets.push(`sql_mode = ${lit(o.sqlMode)}`);
  if (o.collation) sets.push(`collation_connection = ${lit(o.collation)}`);
  if (o.timeZone) sets.push(`time_zone = ${lit(o.timeZone)}`);
  return sets.length ? [`SET SESSION ${sets.join(', ')}`] : [];
}

const SAVE_SESSION = 'SET @ftdb_fk = @@foreign_key_checks, @ftdb_uc = @@unique_checks, @ftdb_mode = @@sql_mode, @ftdb_coll = @@collation_connection, @ftdb_tz = @@time_zone';
const RESTORE_SESSION = 'SET SESSION foreign_key_checks = @ftdb_fk, unique_checks = @ftdb_uc, sql_mode = @ftdb_mode, collation_connection = @ftdb_coll, time_zone = @ftdb_tz';

/**
 * The statements that turn an empty schema `target` into a copy of the captured template:
 * tables (foreign keys off, so order only matters for readers), seed rows copied server-side,
 * then views, routines, triggers (after the rows, so seeding does not fire them) and events.
 */
export function cloneStatements(cap: Capture, template: string, target: string, marker: Marker & { template?: string }, schemaComments = false): string[] {
  // Marker first; USE next, so that the script's connection shows this schema in the process list
  // (what a forced drop ends when the client that sent the script is gone).
  const s: string[] = [...createMarked(target, marker, schemaComments, cap.charset, cap.collation), `USE ${id(target)}`, SAVE_SESSION];
  s.push("SET SESSION foreign_key_checks = 0, unique_checks = 0, sql_mode = 'NO_AUTO_VALUE_ON_ZERO', time_zone = '+00:00'");
  for (const t of cap.tables) s.push(t.create);
  for (const t of cap.tables) if (t.seedColumns) s.push(seedStatement(t, template));
  for (const o of [...cap.views, ...cap.routines, ...cap.triggers, ...cap.events]) s.push(...sessionFor(o), o.sql);
  s.push(RESTORE_SESSION);
  return s;
}

function seedStatement(t: CapturedTable, template: string): string {
  const cols = (t.seedColumns ?? []).map(id).join(', ');
  return `INSERT INTO ${id(t.name)} (${cols}) SELECT ${cols} FROM ${qual(template, t.name)}`;
}

/** Splits statements into batches that stay below the packet limit. */
function scripts(statements: string[]): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let size = 0;
  for (const st of statements) {
    if (cur.length && size + st.length > MAX_SCRIPT_CHARS) {
      out.push(cur);
      cur = [];
      size = 0;
    }
    cur.push(st);
    size += st.length + 2;
  }
  if (cur.length) out.push(cur);
  return out;
}

async function runScript(client: SqlClient, statements: string[]): Promise<void> {
  if (isMysqlClient(client)) for (const sc of scripts(statements)) await client.multi(sc);
  else for (const st of statements) await client.query(st);
}

/** Captures are immutable once a template is complete (its name carries the fingerprint). */
const captureCache = new Map<string, Capture>();

async function loadCapture(admin: SqlClient, template: string): Promise<Capture | undefined> {
  const cached = captureCache.get(template);
  if (cached) return cached;
  if (!(await hasCaptureTable(admin, template))) return undefined;
  const rows = await admin.query<{ body: string }>(`SELECT body FROM ${qual(template, CAPTURE_TABLE)} WHERE id = 1`);
  if (!rows[0]) return undefined;
  const cap = JSON.parse(rows[0].body) as Capture;
  captureCache.set(template, cap);
  return cap;
}

async function hasCaptureTable(admin: SqlClient, template: string): Promise<boolean> {
  const rows = await admin.query<{ s: string }>(`SELECT TABLE_SCHEMA AS s FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, [template, CAPTURE_TABLE]);
  return rows.some((r) => r.s === template);
}

async function templateState(admin: SqlClient, name: string): Promise<TemplateState> {
  const marker = await readMarker(admin, name);
  if (marker === undefined) return 'missing';
  if (marker === null || marker.kind !== 'template') return 'unmarked';
  if (!(await hasCaptureTable(admin, name))) return 'incomplete';
  const rows = await admin.query(`SELECT 1 AS one FROM ${qual(name, CAPTURE_TABLE)} WHERE id = 1`);
  return rows.length ? 'complete' : 'incomplete';
}

async function completeTemplate(admin: SqlClient, server: ServerInfo, name: string, _opts: { unlogged: boolean }): Promise<void> {
  // MySQL has no UNLOGGED tables; `unlogged` is a PostgreSQL option.
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
  if (!marker) throw new FastTestDbError('NOT_OURS', `template ${name} lost its marker during the build`, 'something else dropped or replaced it: look for another process using the same prefix');
  const seeded = cap.tables.filter((t) => t.seedColumns).map((t) => t.name);
  // ALTER keeps the marker in place (no moment without one, unlike DROP + CREATE).
  await admin.query(`ALTER PROCEDURE ${qual(name, MARKER_ROUTINE)} COMMENT ${lit(encodeMarker({ ...marker, seeded }))}`);
  // One INSERT of the whole capture is atomic: a template is complete exactly when this row exists.
  await admin.query(`CREATE TABLE ${qual(name, CAPTURE_TABLE)} (id INT PRIMARY KEY, body LONGTEXT NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  await admin.query(`INSERT INTO ${qual(name, CAPTURE_TABLE)} (id, body) VALUES (1, ?)`, [JSON.stringify(cap)]);
  captureCache.set(name, cap);
  log(`captured template ${name}: ${cap.tables.length} tables, ${cap.views.length} views, ${cap.routines.length} routines, ${cap.triggers.length} triggers, ${cap.events.length} events in ${Math.round(performance.now() - started)} ms`);
}

async function clone(admin: SqlClient, server: ServerInfo, template: string, name: string, marker: Marker): Promise<void> {
  const cap = await loadCapture(admin, template);
  if (!cap) throw new FastTestDbError('QUERY_FAILED', `template ${template} has no capture (it is incomplete or was dropped)`, 'build the template again (the next createTestDatabase() call does)');
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
    const existed = ((e as { cause?: { code?: string } }).cause?.code ?? '') === 'ER_DB_CREATE_EXISTS';
    if (!existed) await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`).catch(() => undefined);
    throw e;
  } finally {
    await admin.query(`USE ${id(server.adminDatabase || 'information_schema')}`).catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// Reset

const templateOf = new Map<string, string | null>();
/** Tables seen at the last reset of each database, probed optimistically next time. */
const knownTables = new Map<string, string[]>();

/**
 * Empties tables that have rows and restarts their AUTO_INCREMENT. Seeded tables (`keep`, the
 * template's migration history and reference data) are kept, and restored from the template when
 * a test changed them (CHECKSUM TABLE differs); without the template they are left as they are.
 */
async function reset(db: SqlClient, name: string, keep: readonly string[] = []): Promise<ResetReport> {
  const started = performance.now();
  if (!templateOf.has(name)) {
    const marker = (await readMarker(db, name)) as (Marker & { template?: string }) | null | undefined;
    if (!marker) throw new FastTestDbError('NOT_OURS', `schema ${name} was not created by fast-test-db`, 'reset only databases that createTestDatabase() returned');
    templateOf.set(name, marker.template ?? null);
  }
  const template = templateOf.get(name) ?? null;
  const cap = template ? await loadCapture(db, template).catch(() => undefined) : undefined;
  if (template && !cap) log(`template ${template} of ${name} is gone: seeded tables are left as they are`);
  const captured = new Map((cap?.tables ?? []).map((t) => [t.name, t]));

  // One round trip in the common case: table list with AUTO_INCREMENT, a has-rows probe of the
  // tables we expect, and checksums of seeded tables against the template.
  const expected = knownTables.get(name) ?? (cap ? cap.tables.map((t) => t.name) : undefined);
  const seededNames = cap && template ? cap.tables.filter((t) => t.seedColumns).map((t) => t.name) : [];
  const listSql = `SELECT TABLE_NAME AS n, AUTO_INCREMENT AS ai FROM information_schema.TABLES WHERE TABLE_SCHEMA = ${lit(name)} AND TABLE_TYPE = 'BASE TABLE'`;
  const probeSql = (names: string[]) => names.map((n) => `SELECT ${lit(n)} AS n, EXISTS(SELECT 1 FROM ${qual(name, n)}) AS r`).join(' UNION ALL ');
  const checksumSql = (names: string[]) => `CHECKSUM TABLE ${names.flatMap((n) => [qual(name, n), qual(template!, n)]).join(', ')}`;
  // MySQL 8 caches information_schema statistics for a day unless told otherwise (session only).
  const pre = isMysqlClient(db) && db.flavor === 'mysql' ? ['SET SESSION information_schema_stats_expiry = 0'] : [];
  type Row = { n: string; ai: string | number | null };
  let tables: Row[] | undefined;
  let probed: Array<{ n: string; r: number | string }> = [];
  let sums: Array<{ Table: string; Checksum: string | number | null }> = [];
  if (expected?.length && isMysqlClient(db)) {
    const stmts = [...pre, listSql, probeSql(expected), ...(seededNames.length ? [checksumSql(seededNames)] : [])];
    try {
      const res = await db.multi(stmts);
      tables = res[pre.length] as Row[];
      probed = res[pre.length + 1] as typeof probed;
      sums = (res[pre.length + 2] ?? []) as typeof sums;
    } catch (e) {
      log(`reset ${name}: optimistic probe failed (${messageOf(e)}), probing table by table`);
      tables = undefined;
    }
  }
  if (!tables) {
    for (const p of pre) await db.query(p);
    tables = await db.query<Row>(listSql);
    probed = [];
    sums = [];
  }
  const live = tables.filter((t) => t.n !== CAPTURE_TABLE);
  knownTables.set(name, live.map((t) => t.n));
  const probedNames = new Set(probed.map((p) => p.n));
  const missing = live.filter((t) => !probedNames.has(t.n)).map((t) => t.n);
  if (missing.length) probed.push(...(await db.query<{ n: string; r: number | string }>(probeSql(missing))));
  const seededLive = seededNames.filter((n) => live.some((t) => t.n === n));
  if (seededLive.length && sums.length === 0) sums = await db.query(checksumSql(seededLive));
  const hasRows = new Map(probed.map((r) => [r.n, Number(r.r) === 1]));
  const checksums = new Map(sums.map((r) => [r.Table, String(r.Checksum)]));

  const emptied: string[] = [];
  const restarted: string[] = [];
  const statements: string[] = [];
  const refill: CapturedTable[] = [];
  const kept = new Set(keep);
  for (const t of live) {
    const c = captured.get(t.n);
    if (kept.has(t.n) && !(c?.seedColumns && cap && template)) continue;
    const ai = t.ai === null ? null : Number(t.ai);
    const baseAi = c?.autoIncrement ?? 1;
    if (c?.seedColumns && cap && template) {
      const same = checksums.get(`${name}.${t.n}`) === checksums.get(`${template}.${t.n}`) && (ai === null || ai === baseAi);
      if (same) continue;
      statements.push(`TRUNCATE TABLE ${qual(name, t.n)}`);
      refill.push(c);
      emptied.push(t.n);
      if (ai !== null) restarted.push(t.n);
    } else if (hasRows.get(t.n) || (ai !== null && ai > Math.max(1, baseAi))) {
      // TRUNCATE restarts AUTO_INCREMENT too, and beat DELETE + ALTER TABLE ... AUTO_INCREMENT here.
      statements.push(`TRUNCATE TABLE ${qual(name, t.n)}`);
      if (hasRows.get(t.n)) emptied.push(t.n);
      if (ai !== null && ai > 1) restarted.push(t.n);
    }
  }
  if (refill.length) {
    // Seeding must not fire the clone's INSERT triggers: lift them for the copy, as the clone did.
    const triggers = (cap?.triggers ?? []).filter((tr) => refill.some((r) => r.name === tr.table));
    for (const tr of triggers) statements.push(`DROP TRIGGER IF EXISTS ${qual(name, tr.name)}`);
    for (const r of refill) {
      statements.push(`INSERT INTO ${qual(name, r.name)} (${r.seedColumns!.map(id).join(', ')}) SELECT ${r.seedColumns!.map(id).join(', ')} FROM ${qual(template!, r.name)}`);
      if (r.autoIncrement !== null) statements.push(`ALTER TABLE ${qual(name, r.name)} AUTO_INCREMENT = ${Number(r.autoIncrement)}`);
    }
    if (triggers.length) statements.push(`USE ${id(name)}`);
    for (const tr of triggers) statements.push(...sessionFor(tr), tr.sql);
  }
  await pausePoint('reset');
  if (statements.length) {
    // TRUNCATE commits implicitly: reset runs on its own connection, never inside a test's transaction.
    const all = [SAVE_SESSION, "SET SESSION foreign_key_checks = 0, sql_mode = 'NO_AUTO_VALUE_ON_ZERO', time_zone = '+00:00'", ...statements, RESTORE_SESSION];
    try {
      await runScript(db, all);
    } catch (e) {
      await db.query(RESTORE_SESSION).catch(() => undefined);
      throw e;
    }
  }
  return { emptied, restarted, restored: refill.map((r) => r.name), ms: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------
// Settings

async function tuneDatabase(_admin: SqlClient, name: string): Promise<void> {
  // MySQL has no per-schema durability settings, and a server we do not own is never changed
  // globally (no SET GLOBAL): what stays fast there is the clone and the dirty-table reset.
  log(`${name}: MySQL/MariaDB have no per-schema tuning; server settings left as they are`);
}

function normalize(name: string, value: string): string {
  if (name === 'innodb_doublewrite' || name === 'log_bin') return value === '0' ? 'OFF' : value === '1' ? 'ON' : value.toUpperCase();
  return value;
}

async function describe(admin: SqlClient, server: ServerInfo): Promise<DescribeReport> {
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

export const mysqlDialect: Dialect = {
  engine: 'mysql',
  staged: false,
  listStaging: async () => [],
  connect,
  url,
  withLock,
  templateState,
  createEmpty,
  completeTemplate,
  clone,
  drop,
  readMarker,
  listOurs,
  tuneDatabase,
  reset,
  describe,
};
