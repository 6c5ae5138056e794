/**
 * fastInsert for Prisma: the INSERT that `create()` would run (planned in plan.ts), sent as a
 * prepared statement straight on the driver pool the client's driver adapter uses, and the
 * records create() would return: from RETURNING, or read back by key where the server has none.
 */
import { FastTestDbError } from '../../src/adapter-kit.js';
import { coalescer } from '../shared/coalesce.js';
import { engineFor } from '../../src/adapter-kit.js';
import { rowsPerStatement } from '../shared/insert-sql.js';
import { appClientLease } from './app-client.js';
import { registered } from './context.js';
import type { DriverSession, StatementResult } from './driver.js';
import {
  canReturn,
  planFor,
  prepareRow,
  statementFor,
  toRecord,
  type FastInsertContext,
  type FieldPlan,
  type ModelPlan,
  type PreparedRow,
} from './plan.js';

/** A Prisma model delegate such as `prisma.user`. */
export interface ModelDelegate {
  create(args: never): unknown;
}

/** create()'s `data` for this delegate (checked or unchecked input, as create takes). */
export type CreateData<D> = 0 extends 1 & D
  ? any
  : D extends { create(args: infer A): unknown }
    ? A extends { data: infer I }
      ? I
      : never
    : never;

/** The record create() returns for this delegate. */
export type CreatedRecord<D> = 0 extends 1 & D
  ? any
  : D extends { findFirstOrThrow(args?: never): PromiseLike<infer R> }
    ? R
    : Record<string, unknown>;

export interface FastInsertOptions {
  /** false: skip RETURNING / reading rows back and resolve to nothing. Default true. */
  returning?: boolean;
  /**
   * PostgreSQL: single-row calls started in the same tick (Promise.all over a map) go out together
   * as multi-row INSERTs (one round trip per batch; a batch the server refuses is sent again row
   * by row, so each call settles as alone; what differs: sequence values the refused batch drew are
   * skipped, now() is one value per batch, statement triggers fire once per batch). Default true.
   */
  coalesce?: boolean;
}

/**
 * Inserts rows as `create()` would write them, without Prisma's query pipeline: one prepared
 * INSERT per column set, batched, RETURNING the rows (re-read by key on MySQL 8).
 *
 * Takes the model delegate (`prisma.post`), so it reads like `prisma.post.create()` and the
 * row and result types follow from the delegate; no model name string to mistype. The delegate
 * may come from a client made by prismaTestDb or prismaClient (which share their pool with it),
 * or from the app's own Prisma 7 client on @prisma/adapter-pg or @prisma/adapter-mariadb (a client
 * without a driver adapter is refused with UNSUPPORTED, which says why).
 *
 * One row in: its record, shaped like create() returns it (every field, on every engine). An
 * array in: the records in input order. `{ returning: false }`: nothing. Nested relation writes,
 * unknown fields and values create() would reject throw FastTestDbError('UNSUPPORTED').
 */
export function fastInsert<D>(
  delegate: D,
  rows: ReadonlyArray<CreateData<D>>,
  options?: FastInsertOptions & { returning?: true },
): Promise<Array<CreatedRecord<D>>>;
export function fastInsert<D>(
  delegate: D,
  row: CreateData<D>,
  options?: FastInsertOptions & { returning?: true },
): Promise<CreatedRecord<D>>;
export function fastInsert<D>(
  delegate: D,
  rows: CreateData<D> | ReadonlyArray<CreateData<D>>,
  options: FastInsertOptions & { returning: false },
): Promise<void>;
export async function fastInsert<D>(
  delegate: D,
  rows: CreateData<D> | ReadonlyArray<CreateData<D>>,
  options: FastInsertOptions = {},
): Promise<Array<CreatedRecord<D>> | CreatedRecord<D> | undefined> {
  const out = await insertList(delegate, rows, options);
  if (options.returning === false) return undefined;
  return (Array.isArray(rows) ? out : out[0]) as Array<CreatedRecord<D>> | CreatedRecord<D>;
}

/** The rows of one call, as a list whatever its shape; the records (none without returning) in input order. */
async function insertList<D>(
  delegate: D,
  rows: CreateData<D> | ReadonlyArray<CreateData<D>>,
  options: FastInsertOptions,
): Promise<Array<Record<string, unknown> | undefined>> {
  const reg = registered(delegate);
  const list = (Array.isArray(rows) ? rows : [rows]) as unknown as Array<Record<string, unknown>>;
  const returning = options.returning !== false;
  const how = { returning, coalesce: options.coalesce };
  let out: Array<Record<string, unknown> | undefined>;
  if (reg?.model) {
    if (list.length === 0) return [];
    out = await insertRows(reg.ready.value ?? (await reg.ctx()), reg.model, list, how);
  } else {
    // Not a client of ours: the app's own client, reached through the delegate.
    const lease = delegate && typeof delegate === 'object' && !reg ? appClientLease(delegate) : undefined;
    if (!lease) {
      throw new FastTestDbError(
        'BAD_OPTION',
        reg
          ? 'fastInsert takes a model delegate such as prisma.user, not the client'
          : 'fastInsert: the first argument is not a Prisma model delegate',
        'pass a model delegate of a Prisma 7 client, e.g. fastInsert(prisma.user, rows)',
      );
    }
    try {
      if (list.length === 0) return [];
      out = await insertRows(await lease.context(), lease.model, list, how);
    } finally {
      lease.release();
    }
  }
  return out;
}

/**
 * Inserts `rows` into `modelName` and returns records shaped like create() returns them, in
 * input order. Rows with different sets of fields go into different statements, so that a
 * missing field always means the same thing (its default), never NULL by accident.
 */
export async function insertRows(
  ctx: FastInsertContext,
  modelName: string,
  rows: Array<Record<string, unknown>>,
  opts: { returning?: boolean; coalesce?: boolean } = {},
): Promise<Array<Record<string, unknown> | undefined>> {
  const plan = planFor(ctx, modelName);
  const { driver } = ctx;
  const { engine } = driver;
  // One `now` per call, as Prisma uses one per request.
  const now = new Date();
  const wantRows = opts.returning !== false;
  if (rows.length === 1) {
    const row = prepareRow(plan, rows[0]!, now);
    // Coalesced only where the engine allows it (see adapters/shared/coalesce.ts).
    if (!engineFor(engine).inserts.coalesce || opts.coalesce === false) return statementRows(ctx, driver, plan, [row], wantRows);
    plan.coalesced ??= coalescer<PreparedRow, StatementResult, Record<string, unknown> | undefined>({
      limit: (row) => rowsPerStatement(engine, row.fields.length),
      one: async (row, returning) => (await statementRows(ctx, driver, plan, [row], returning))[0],
      send: (rows, returning) => sendRows(ctx, driver, plan, rows, returning),
      finish: (rows, returning, res) => recordsOf(ctx, driver, plan, rows, returning, res),
    });
    return [await plan.coalesced.add(row.key, wantRows, row)];
  }
  const groups = new Map<string, { rows: PreparedRow[]; indexes: number[] }>();
  rows.forEach((r, i) => {
    const row = prepareRow(plan, r, now);
    let g = groups.get(row.key);
    if (!g) groups.set(row.key, (g = { rows: [], indexes: [] }));
    g.rows.push(row);
    g.indexes.push(i);
  });
  const statements: Array<{ rows: PreparedRow[]; indexes: number[] }> = [];
  for (const g of groups.values()) {
    const per = rowsPerStatement(engine, g.rows[0]!.fields.length);
    for (let at = 0; at < g.rows.length; at += per)
      statements.push({ rows: g.rows.slice(at, at + per), indexes: g.indexes.slice(at, at + per) });
  }
  const out = new Array<Record<string, unknown> | undefined>(rows.length);
  const runAll = async (session: DriverSession) => {
    for (const st of statements) {
      const records = await statementRows(ctx, session, plan, st.rows, wantRows);
      for (let k = 0; k < records.length; k++) out[st.indexes[k]!] = records[k];
    }
  };
  // Several statements (big arrays, mixed column sets) run in one transaction: all rows or none,
  // as createMany() does.
  if (statements.length === 1) await runAll(driver);
  else await driver.transaction(runAll);
  return out;
}

/** One statement for rows of one field set: the records create() would return, in row order (none without wantRows). */
async function statementRows(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  rows: PreparedRow[],
  wantRows: boolean,
): Promise<Array<Record<string, unknown> | undefined>> {
  return recordsOf(ctx, driver, plan, rows, wantRows, await sendRows(ctx, driver, plan, rows, wantRows));
}

function sendRows(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  rows: PreparedRow[],
  wantRows: boolean,
): Promise<StatementResult> {
  const { fields, key } = rows[0]!;
  const sql = statementFor(plan, ctx.driver, key, fields, rows.length, wantRows);
  return driver.run(sql, rows.length === 1 ? rows[0]!.values : rows.flatMap((r) => r.values));
}

/** The records of rows the statement wrote: from RETURNING, or read back by key (MySQL). */
async function recordsOf(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  rows: PreparedRow[],
  wantRows: boolean,
  res: StatementResult,
): Promise<Array<Record<string, unknown> | undefined>> {
  if (!wantRows) return rows.map(() => undefined);
  if (canReturn(ctx.driver)) return res.rows.map((r) => toRecord(plan, r));
  return reselect(
    ctx,
    driver,
    plan,
    rows[0]!.fields,
    rows.map((r) => r.values),
    res.insertId,
  );
}

/**
 * MySQL has no RETURNING: read the rows back by primary key, as Prisma does after an insert
 * there. AUTO_INCREMENT values of one multi-row INSERT are consecutive from insertId (spaced by
 * auto_increment_increment).
 */
async function reselect(
  ctx: FastInsertContext,
  driver: DriverSession,
  plan: ModelPlan,
  fields: FieldPlan[],
  batch: unknown[][],
  insertId: bigint | undefined,
): Promise<Array<Record<string, unknown>>> {
  const pk = plan.model.primaryKey.map((n) => plan.byName.get(n)!);
  if (!pk.length || pk.some((f) => !f)) {
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fastInsert ${plan.model.name}: on MySQL a model needs a primary key to read inserted rows back`,
      'add @id/@@id, or use createMany() for this model',
    );
  }
  const auto = plan.autoincrement;
  const autoGiven = auto ? fields.includes(auto) : false;
  if (auto && !autoGiven && ctx.autoIncrementStep === undefined) {
    const r = await driver.query('SELECT @@auto_increment_increment AS step');
    ctx.autoIncrementStep = Number(r[0]?.step ?? 1);
  }
  const keys = batch.map((values, k) =>
    pk.map((f) => {
      const at = fields.indexOf(f);
      if (at >= 0) return values[at];
      if (f === auto && insertId !== undefined) return String(insertId + BigInt(k * (ctx.autoIncrementStep ?? 1)));
      throw new FastTestDbError(
        'UNSUPPORTED',
        `fastInsert ${plan.model.name}: primary key ${f.field.name} is generated by the database and cannot be read back on MySQL`,
        'pass the key in every row',
      );
    }),
  );
  const q = engineFor(ctx.driver.engine).quoting.quoteIdent;
  const cols = plan.fields.map((f) => q(f.field.dbName)).join(', ');
  const tuple = `(${pk.map(() => '?').join(', ')})`;
  const sql = `SELECT ${cols} FROM ${q(plan.model.dbName)} WHERE (${pk.map((f) => q(f.field.dbName)).join(', ')}) IN (${keys.map(() => tuple).join(', ')})`;
  const rows = await driver.query(sql, keys.flat());
  const byKey = new Map(rows.map((r) => [pk.map((f) => String(r[f.field.dbName])).join('\0'), r]));
  return keys.map((k) => {
    const r = byKey.get(k.map(String).join('\0'));
    if (!r)
      throw new FastTestDbError(
        'QUERY_FAILED',
        `fastInsert ${plan.model.name}: an inserted row could not be read back`,
        'check auto_increment settings of the server',
      );
    return toRecord(plan, r);
  });
}
