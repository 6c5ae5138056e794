/**
 * The INSERT plan of one TypeORM entity: which columns an INSERT carries, what insert() asks back,
 * and how one row becomes the values insert() would compute (the driver's own
 * preparePersistentValue). Built once per entity metadata; fast-insert.ts sends what it plans.
 */
import { randomUUID } from 'node:crypto';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata.js';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { FastTestDbError } from '../../src/adapter-kit.js';
import type { Coalesced } from '../shared/coalesce.js';
import { engineFor } from '../../src/adapter-kit.js';
import { chunk, insertSql, rowsPerStatement } from '../shared/insert-sql.js';
import { insertDriverOf, type Executor, type InsertOutcome, type TypeormDriver } from './driver.js';

export const SINGLE: number[][] = [[0]];

export interface EntityPlan {
  metadata: EntityMetadata;
  dataSource: DataSource;
  driver: TypeormDriver;
  table: string[];
  /** Columns an INSERT may carry, in metadata order (the order insert() uses). */
  columns: ColumnMetadata[];
  spatial: Set<ColumnMetadata>;
  /** UUID keys TypeORM generates in the client because the engine cannot (MySQL). */
  clientUuid: Set<ColumnMetadata>;
  /** The AUTO_INCREMENT key whose value comes back as insertId, where there is no RETURNING (MySQL). */
  increment?: ColumnMetadata;
  /** What insert() asks back with RETURNING, where the engine has it (PostgreSQL). */
  returning: ColumnMetadata[];
  statements: Map<string, { text: string; columns: ColumnMetadata[] }>;
  pool?: { owner: unknown; run: Executor; coalesced: Coalesced<PreparedRow, InsertOutcome> };
  subscribersChecked: boolean;
}

/** Keyed by metadata: a DataSource initialised again builds new metadata, and so gets new plans. */
const plans = new WeakMap<EntityMetadata, EntityPlan>();

function unsupported(what: string, fix: string): FastTestDbError {
  return new FastTestDbError('UNSUPPORTED', `fastInsert: ${what}`, fix);
}

export function planFor(dataSource: DataSource, target: EntityTarget<ObjectLiteral>, metadata?: EntityMetadata): EntityPlan {
  const md = metadata ?? dataSource.getMetadata(target);
  let plan = plans.get(md);
  if (plan) return plan;

  const typeormDriver = insertDriverOf(dataSource);
  const { inserts } = engineFor(typeormDriver.engine);
  const driver = dataSource.driver;
  if (md.treeType) {
    throw unsupported(
      `${md.name} is a tree entity (${md.treeType}); insert() would write it without its tree bookkeeping`,
      'seed tree entities with repository.save() or treeRepository.save()',
    );
  }
  if (md.tableType === 'view') throw unsupported(`${md.name} is a view entity`, 'insert into the tables the view reads from');
  const columns = md.columns.filter((c) => {
    if (!c.isInsert) return false;
    // insert() leaves SERIAL keys out on PostgreSQL, even when the row carries a value.
    if (typeormDriver.omitsIncrementKeys && c.isGenerated && c.generationStrategy === 'increment') return false;
    return true;
  });
  const spatialTypes = (driver as unknown as { spatialTypes: unknown[] }).spatialTypes ?? [];
  plan = {
    metadata: md,
    dataSource,
    driver: typeormDriver,
    table: [inserts.tableNamespace === 'schema' ? md.schema : md.database, md.tableName].filter((p): p is string => !!p),
    columns,
    spatial: new Set(columns.filter((c) => spatialTypes.includes(c.type))),
    clientUuid: new Set(columns.filter((c) => c.isGenerated && c.generationStrategy === 'uuid' && !driver.isUUIDGenerationSupported())),
    increment: md.columns.find((c) => c.isPrimary && c.isGenerated && c.generationStrategy === 'increment'),
    returning: inserts.returning ? returningColumns(md) : [],
    statements: new Map(),
    subscribersChecked: false,
  };
  plans.set(md, plan);
  return plan;
}

/**
 * What insert() asks back with RETURNING. 0.2.x has no EntityMetadata method for it (its query
 * builder filters the same way, without generated-column expressions, which 0.2 lacks).
 */
function returningColumns(md: EntityMetadata): ColumnMetadata[] {
  if (typeof md.getInsertionReturningColumns === 'function') return md.getInsertionReturningColumns();
  return md.columns.filter(
    (c) => c.default !== undefined || c.isGenerated || c.isCreateDate || c.isUpdateDate || c.isDeleteDate || c.isVersion,
  );
}

/** Entity subscribers with beforeInsert/afterInsert are not called: their presence is an error unless `subscribers` is 'skip'. */
export function checkSubscribers(plan: EntityPlan, subscribers: 'error' | 'skip' | undefined): void {
  if (plan.subscribersChecked || subscribers === 'skip') return;
  const target = plan.metadata.target;
  const listening = plan.dataSource.subscribers.filter((s) => {
    if (!s.beforeInsert && !s.afterInsert) return false;
    const to = s.listenTo?.();
    return !to || to === Object || to === target || (typeof target === 'function' && target.prototype instanceof (to as new () => unknown));
  });
  if (listening.length) {
    throw unsupported(
      `${listening.map((s) => s.constructor.name).join(', ')} listen(s) to inserts of ${plan.metadata.name}, and fastInsert does not call subscribers`,
      `pass { subscribers: 'skip' } if the rows do not depend on them, or use repository.insert() for this entity`,
    );
  }
  plan.subscribersChecked = true;
}

export interface PreparedRow {
  key: string;
  values: unknown[];
  columns: ColumnMetadata[];
  local?: Map<ColumnMetadata, unknown>;
}

/** One row's values, exactly as insert() computes them; undefined means DEFAULT, so the column is left out. */
export function prepareRow(plan: EntityPlan, row: ObjectLiteral): PreparedRow {
  const driver = plan.dataSource.driver;
  const values: unknown[] = [];
  const columns: ColumnMetadata[] = [];
  let key = '';
  let local: Map<ColumnMetadata, unknown> | undefined;
  const cols = plan.columns;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!;
    let v: unknown;
    if (c.isDiscriminator) {
      v = plan.metadata.discriminatorValue;
    } else {
      v = c.getEntityValue(row);
      if (typeof v === 'function') {
        throw unsupported(
          `${plan.metadata.name}.${c.propertyPath} is a SQL expression (a function value)`,
          'pass a plain value, or use repository.insert() for rows with SQL expressions',
        );
      }
      if (v === undefined && c.relationMetadata && c.referencedColumn) checkRelation(plan, c, row);
      v = driver.preparePersistentValue(v, c);
      if (v === undefined) {
        if (c.isVersion) v = 1;
        else if (plan.clientUuid.has(c)) {
          v = randomUUID();
          (local ??= new Map()).set(c, v);
        } else continue;
      } else if (v !== null && plan.spatial.has(c)) {
        throw unsupported(
          `${plan.metadata.name}.${c.propertyPath} is a spatial column`,
          'use repository.insert() for rows with spatial values',
        );
      }
    }
    key += i + ',';
    values.push(v);
    columns.push(c);
  }
  return { key, values, columns, local };
}

/** A related object without its key would silently become a NULL foreign key: insert() does that, we refuse. */
function checkRelation(plan: EntityPlan, c: ColumnMetadata, row: ObjectLiteral): void {
  const related = c.relationMetadata!.getEntityValue(row);
  if (related !== null && typeof related === 'object' && !(related instanceof Date) && !ArrayBuffer.isView(related)) {
    throw unsupported(
      `${plan.metadata.name}.${c.relationMetadata!.propertyPath} is an object without ${c.referencedColumn!.propertyPath}; fastInsert does not cascade, so its foreign key would be NULL`,
      'insert the related row first (fastInsert returns its key) and pass it, or pass its id',
    );
  }
}

export function statement(plan: EntityPlan, row: PreparedRow, rows: number, returning: boolean): string {
  const k = row.key + (returning ? '|r' : '|n') + rows;
  let st = plan.statements.get(k);
  if (!st) {
    const text = insertSql({
      engine: plan.driver.engine,
      table: plan.table,
      columns: row.columns.map((c) => c.databaseName),
      rows,
      returning: returning ? plan.returning.map((c) => c.databaseName) : [],
    });
    st = { text, columns: row.columns };
    if (plan.statements.size > 2000) plan.statements.clear();
    plan.statements.set(k, st);
  }
  return st.text;
}

/** Row indexes per statement: runs of one column set, each cut to the engine's parameter limit. */
export function batchesOf(plan: EntityPlan, prepared: PreparedRow[]): number[][] {
  const batches: number[][] = [];
  for (let start = 0; start < prepared.length; ) {
    const key = prepared[start]!.key;
    let end = start + 1;
    while (end < prepared.length && prepared[end]!.key === key) end++;
    const size = rowsPerStatement(plan.driver.engine, prepared[start]!.columns.length);
    const run: number[] = [];
    for (let i = start; i < end; i++) run.push(i);
    batches.push(...chunk(run, size));
    start = end;
  }
  return batches;
}
