/**
 * MySQL/MariaDB templates: what a template holds (DDL in foreign-key-safe order, views, routines,
 * triggers, events, and which tables hold seed rows), captured once into a table inside the
 * template, and the script that replays it into a new schema.
 */
import { FastTestDbError } from '../../errors.js';
import type { Marker } from '../marker.js';
import type { MysqlClient } from './client.js';
import { createMarked, MARKER_ROUTINE } from './marker.js';
import { id, lit, qual } from './quote.js';

export const CAPTURE_TABLE = '_fast_test_db_capture';

/** A statement plus the session settings it was created under (routines, triggers, views, events). */
export interface Stored {
  name: string;
  sql: string;
  sqlMode?: string;
  collation?: string;
  timeZone?: string;
  /** Triggers: the table they belong to. */
  table?: string;
}

export interface CapturedTable {
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
  return sql.replace(
    /^(\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:ALGORITHM\s*=\s*\w+\s+)?)DEFINER\s*=\s*(?:`(?:[^`]|``)*`|'(?:[^']|'')*'|[^\s@]+)(?:@(?:`(?:[^`]|``)*`|'(?:[^']|'')*'|[^\s]+))?\s+/i,
    '$1',
  );
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
  for (const [k, v] of Object.entries(row))
    if ((k.startsWith('Create ') || k === 'SQL Original Statement') && typeof v === 'string') return v;
  throw new FastTestDbError(
    'QUERY_FAILED',
    `unexpected SHOW CREATE result: ${Object.keys(row).join(', ')}`,
    'report this with your server version',
  );
}

export async function capture(db: MysqlClient, schema: string): Promise<Capture> {
  const [info] = await db.query<{ cs: string; co: string }>(
    `SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`,
    [schema],
  );
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
    ? await db.query<{ n: string; r: number | string }>(
        ordered.map((n) => `SELECT ${lit(n)} AS n, EXISTS(SELECT 1 FROM ${qual(schema, n)}) AS r`).join(' UNION ALL '),
      )
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
    viewSql.set(n, { name: n, sql: stripDefiner(createText(row!)), collation: String(row!.collation_connection ?? '') || undefined });
  }
  // A view's text names the views it reads from in backquotes.
  const views = dependencyOrder(viewNames, (n) =>
    viewNames.filter((o) => o !== n && viewSql.get(n)!.sql.includes('`' + o.replace(/`/g, '``') + '`')),
  ).map((n) => viewSql.get(n)!);

  const routines: Stored[] = [];
  const routineRows = await db.query<{ n: string; t: string }>(
    `SELECT ROUTINE_NAME AS n, ROUTINE_TYPE AS t FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? ORDER BY ROUTINE_TYPE, ROUTINE_NAME`,
    [schema],
  );
  for (const r of routineRows) {
    if (r.n === MARKER_ROUTINE) continue;
    const kind = r.t === 'FUNCTION' ? 'FUNCTION' : r.t === 'PACKAGE' || r.t === 'PACKAGE BODY' ? r.t : 'PROCEDURE';
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE ${kind} ${qual(schema, r.n)}`);
    routines.push({
      name: r.n,
      sql: stripDefiner(createText(row!)),
      sqlMode: String(row!.sql_mode ?? ''),
      collation: String(row!.collation_connection ?? '') || undefined,
    });
  }

  const triggers: Stored[] = [];
  const triggerRows = await db.query<{ n: string; t: string }>(
    `SELECT TRIGGER_NAME AS n, EVENT_OBJECT_TABLE AS t FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? ORDER BY EVENT_OBJECT_TABLE, ACTION_ORDER`,
    [schema],
  );
  for (const t of triggerRows) {
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE TRIGGER ${qual(schema, t.n)}`);
    triggers.push({
      name: t.n,
      table: t.t,
      sql: stripDefiner(createText(row!)),
      sqlMode: String(row!.sql_mode ?? ''),
      collation: String(row!.collation_connection ?? '') || undefined,
    });
  }

  const events: Stored[] = [];
  const eventRows = await db.query<{ n: string }>(
    `SELECT EVENT_NAME AS n FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ? ORDER BY EVENT_NAME`,
    [schema],
  );
  for (const e of eventRows) {
    const [row] = await db.query<Record<string, unknown>>(`SHOW CREATE EVENT ${qual(schema, e.n)}`);
    events.push({
      name: e.n,
      sql: stripDefiner(createText(row!)),
      sqlMode: String(row!.sql_mode ?? ''),
      collation: String(row!.collation_connection ?? '') || undefined,
      timeZone: String(row!.time_zone ?? '') || undefined,
    });
  }
  return { version: 1, charset: info?.cs ?? 'utf8mb4', collation: info?.co ?? '', tables, views, routines, triggers, events };
}

/** `SET SESSION ...` for a stored object's creation settings. */
export function sessionFor(o: Stored): string[] {
  const sets: string[] = [];
  if (o.sqlMode !== undefined) sets.push(`sql_mode = ${lit(o.sqlMode)}`);
  if (o.collation) sets.push(`collation_connection = ${lit(o.collation)}`);
  if (o.timeZone) sets.push(`time_zone = ${lit(o.timeZone)}`);
  return sets.length ? [`SET SESSION ${sets.join(', ')}`] : [];
}

export const SAVE_SESSION =
  'SET @ftdb_fk = @@foreign_key_checks, @ftdb_uc = @@unique_checks, @ftdb_mode = @@sql_mode, @ftdb_coll = @@collation_connection, @ftdb_tz = @@time_zone';
export const RESTORE_SESSION =
  'SET SESSION foreign_key_checks = @ftdb_fk, unique_checks = @ftdb_uc, sql_mode = @ftdb_mode, collation_connection = @ftdb_coll, time_zone = @ftdb_tz';

/**
 * The statements that turn an empty schema `target` into a copy of the captured template:
 * tables (foreign keys off, so order only matters for readers), seed rows copied server-side,
 * then views, routines, triggers (after the rows, so seeding does not fire them) and events.
 */
export function cloneStatements(
  cap: Capture,
  template: string,
  target: string,
  marker: Marker & { template?: string },
  schemaComments = false,
): string[] {
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

/**
 * The captures one set of MySQL roles (roles.ts) has read or written. A capture is immutable once
 * its template is complete (the template's name carries the fingerprint), so it is read from the
 * server once.
 */
export class Captures {
  private readonly byTemplate = new Map<string, Capture>();

  remember(template: string, cap: Capture): void {
    this.byTemplate.set(template, cap);
  }

  /** undefined: the template is gone or was never completed. */
  async load(admin: MysqlClient, template: string): Promise<Capture | undefined> {
    const cached = this.byTemplate.get(template);
    if (cached) return cached;
    if (!(await hasCaptureTable(admin, template))) return undefined;
    const rows = await admin.query<{ body: string }>(`SELECT body FROM ${qual(template, CAPTURE_TABLE)} WHERE id = 1`);
    if (!rows[0]) return undefined;
    const cap = JSON.parse(rows[0].body) as Capture;
    this.byTemplate.set(template, cap);
    return cap;
  }
}

export async function hasCaptureTable(admin: MysqlClient, template: string): Promise<boolean> {
  const rows = await admin.query<{ s: string }>(
    `SELECT TABLE_SCHEMA AS s FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
    [template, CAPTURE_TABLE],
  );
  return rows.some((r) => r.s === template);
}
