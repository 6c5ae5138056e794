/**
 * The two TypeORM drivers fastInsert speaks to, reached below TypeORM: a pg Pool (or the pg
 * client of an open QueryRunner) and a mysql2 pool (or connection). Statements go out prepared:
 * pg by statement name, mysql2 through execute(), so the server parses each text once per connection.
 */
import type { DataSource, QueryRunner } from 'typeorm';
import { classifyDriverError, FastTestDbError, type SqlFamily } from '../../src/adapter-kit.js';
import { preparedName } from '../shared/insert-sql.js';

export interface InsertOutcome {
  /** PostgreSQL: the RETURNING rows, in VALUES order. */
  rows: Record<string, unknown>[];
  /** MySQL: the first AUTO_INCREMENT value the statement generated (0 when none). */
  insertId: number;
}

export type InsertStatement = (text: string, values: unknown[]) => Promise<InsertOutcome>;

interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}
interface MysqlExecutable {
  /** mysql2; the older `mysql` package (which TypeORM 0.3 may load) has only query(). */
  execute?(sql: string, values: unknown[], cb: (err: Error | null, result: unknown) => void): void;
  query(sql: string, values: unknown[], cb: (err: Error | null, result: unknown) => void): void;
}

/**
 * node-postgres (`pg`, or its `pg.native`): a module with Client, Pool and the type parsers. A
 * DataSource's `driver` option may put another module there (typeorm-pglite's PGlite shim), whose
 * pool takes neither prepared statements by name nor pg's query objects.
 */
function isNodePostgres(module: unknown): boolean {
  const m = module as { Client?: unknown; Pool?: unknown; types?: unknown } | undefined;
  return typeof m?.Client === 'function' && typeof m.Pool === 'function' && typeof m.types === 'object' && m.types !== null;
}

export function familyOf(dataSource: DataSource): SqlFamily {
  const type = dataSource.options.type;
  const custom = (dataSource.options as { driver?: unknown }).driver;
  if (type === 'postgres' && custom !== undefined && !isNodePostgres(custom))
    throw new FastTestDbError(
      'UNSUPPORTED',
      "fastInsert speaks to PostgreSQL through node-postgres (the pg package), and this DataSource's `driver` option is another module (such as a PGlite driver), which takes no prepared statements",
      'use repository.insert() on this DataSource, or a DataSource on a PostgreSQL server without the `driver` option (typeormTestDb gives one)',
    );
  if (type === 'postgres') return 'postgres';
  if (type === 'mysql' || type === 'mariadb') return 'mysql';
  throw new FastTestDbError(
    'UNSUPPORTED',
    `fastInsert does not support the TypeORM driver "${type}"`,
    'use a "postgres", "mysql" or "mariadb" DataSource, or repository.insert() for this one',
  );
}

function pgRunner(target: PgQueryable): InsertStatement {
  return (text, values) =>
    target.query({ name: preparedName(text), text, values }).then(
      (res) => ({ rows: res.rows, insertId: 0 }),
      (e: unknown) => {
        throw classifyDriverError(e, `fastInsert: ${text.slice(0, 200)}`);
      },
    );
}

function mysqlRunner(target: MysqlExecutable): InsertStatement {
  const send = target.execute ? target.execute.bind(target) : target.query.bind(target);
  return (text, values) =>
    new Promise((resolve, reject) => {
      send(text, values, (err, result) => {
        if (err) return reject(classifyDriverError(err, `fastInsert: ${text.slice(0, 200)}`));
        const insertId = Number((result as { insertId?: number | string }).insertId ?? 0);
        resolve({ rows: [], insertId });
      });
    });
}

/** Statements on a QueryRunner's connection: the caller's transaction (manager.transaction(...)), or the one fastInsert opens for a many-statement insert. */
export async function runnerFor(family: SqlFamily, queryRunner: QueryRunner): Promise<InsertStatement> {
  const conn = (await queryRunner.connect()) as PgQueryable & MysqlExecutable;
  return family === 'postgres' ? pgRunner(conn) : mysqlRunner(conn);
}

/** Statements on the DataSource's own pool: pg's `master`, mysql2's `pool`. */
export function poolRunner(dataSource: DataSource, family: SqlFamily): InsertStatement {
  const driver = dataSource.driver as unknown as { master?: PgQueryable; pool?: MysqlExecutable };
  if (family === 'postgres') {
    if (!driver.master) throw notConnected();
    return pgRunner(driver.master);
  }
  if (!driver.pool) throw notConnected();
  return mysqlRunner(driver.pool);
}

/** The DataSource's pool: pg's (`master`) or mysql2's (`pool`); a new one after destroy() and initialize(). */
export function poolOf(dataSource: DataSource): unknown {
  const d = dataSource.driver as unknown as { master?: unknown; pool?: unknown };
  return d.master ?? d.pool;
}

function notConnected(): FastTestDbError {
  return new FastTestDbError(
    'UNSUPPORTED',
    'fastInsert needs an initialised DataSource without replication (no pool found on its driver)',
    'call dataSource.initialize() first; with `replication` options, pass a repository from a QueryRunner: dataSource.createQueryRunner("master").manager.getRepository(Entity)',
  );
}
