/**
 * MySQL/MariaDB reset: empties tables that have rows and restarts their AUTO_INCREMENT, in one
 * round trip in the common case; seeded tables come back from the template.
 */
import { FastTestDbError, messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import { pausePoint } from '../../util/debug-pause.js';
import type { ResetReport } from '../../types.js';
import type { Marker } from '../marker.js';
import { CAPTURE_TABLE, RESTORE_SESSION, SAVE_SESSION, sessionFor, type CapturedTable, type Captures } from './capture.js';
import type { Resetter } from '../engine.js';
import { runScript, type MysqlClient } from './client.js';
import { readMarker } from './marker.js';
import { id, lit, qual } from './quote.js';

const log = logger('mysql');

/** What one reset connection learnt about its database: its template, and the tables seen at the last reset. */
interface ResetState {
  name: string;
  template: string | null;
  /** Probed optimistically at the next reset. */
  tables?: string[];
}

// Per connection, not per process (so not in src/state.ts): it goes with its connection.
const states = new WeakMap<MysqlClient, ResetState>();

/**
 * Empties tables that have rows and restarts their AUTO_INCREMENT. Seeded tables (`keep`, the
 * template's migration history and reference data) are kept, and restored from the template when
 * a test changed them (CHECKSUM TABLE differs); without the template they are left as they are.
 */
/** Resets a schema; what the template's capture says about its tables is read through `captures`. */
export function resetter(captures: Captures): Resetter<MysqlClient> {
  return { reset: (db, name, keep) => resetSchema(db, name, keep, captures) };
}

async function resetSchema(db: MysqlClient, name: string, keep: readonly string[], captures: Captures): Promise<ResetReport> {
  const started = performance.now();
  let state = states.get(db);
  if (state?.name !== name) {
    const marker = (await readMarker(db, name)) as (Marker & { template?: string }) | null | undefined;
    if (!marker)
      throw new FastTestDbError(
        'NOT_OURS',
        `schema ${name} was not created by fast-test-db`,
        'reset only databases that createTestDatabase() returned',
      );
    state = { name, template: marker.template ?? null };
    states.set(db, state);
  }
  const template = state.template;
  const cap = template ? await captures.load(db, template).catch(() => undefined) : undefined;
  if (template && !cap) log(`template ${template} of ${name} is gone: seeded tables are left as they are`);
  const captured = new Map((cap?.tables ?? []).map((t) => [t.name, t]));

  // One round trip in the common case: table list with AUTO_INCREMENT, a has-rows probe of the
  // tables we expect, and checksums of seeded tables against the template.
  const expected = state.tables ?? (cap ? cap.tables.map((t) => t.name) : undefined);
  const seededNames = cap && template ? cap.tables.filter((t) => t.seedColumns).map((t) => t.name) : [];
  const listSql = `SELECT TABLE_NAME AS n, AUTO_INCREMENT AS ai FROM information_schema.TABLES WHERE TABLE_SCHEMA = ${lit(name)} AND TABLE_TYPE = 'BASE TABLE'`;
  const probeSql = (names: string[]) =>
    names.map((n) => `SELECT ${lit(n)} AS n, EXISTS(SELECT 1 FROM ${qual(name, n)}) AS r`).join(' UNION ALL ');
  const checksumSql = (names: string[]) => `CHECKSUM TABLE ${names.flatMap((n) => [qual(name, n), qual(template!, n)]).join(', ')}`;
  // MySQL 8 caches information_schema statistics for a day unless told otherwise (session only).
  const pre = db.flavor === 'mysql' ? ['SET SESSION information_schema_stats_expiry = 0'] : [];
  type Row = { n: string; ai: string | number | null };
  let tables: Row[] | undefined;
  let probed: Array<{ n: string; r: number | string }> = [];
  let sums: Array<{ Table: string; Checksum: string | number | null }> = [];
  if (expected?.length) {
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
  state.tables = live.map((t) => t.n);
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
      statements.push(
        `INSERT INTO ${qual(name, r.name)} (${r.seedColumns!.map(id).join(', ')}) SELECT ${r.seedColumns!.map(id).join(', ')} FROM ${qual(template!, r.name)}`,
      );
      if (r.autoIncrement !== null) statements.push(`ALTER TABLE ${qual(name, r.name)} AUTO_INCREMENT = ${Number(r.autoIncrement)}`);
    }
    if (triggers.length) statements.push(`USE ${id(name)}`);
    for (const tr of triggers) statements.push(...sessionFor(tr), tr.sql);
  }
  await pausePoint('reset');
  if (statements.length) {
    // TRUNCATE commits implicitly: reset runs on its own connection, never inside a test's transaction.
    const all = [
      SAVE_SESSION,
      "SET SESSION foreign_key_checks = 0, sql_mode = 'NO_AUTO_VALUE_ON_ZERO', time_zone = '+00:00'",
      ...statements,
      RESTORE_SESSION,
    ];
    try {
      await runScript(db, all);
    } catch (e) {
      await db.query(RESTORE_SESSION).catch(() => undefined);
      throw e;
    }
  }
  return { emptied, restarted, restored: refill.map((r) => r.name), ms: performance.now() - started };
}
