/**
 * Same answers as production, MariaDB side (issue 12 section 4): our tuned server against a
 * default-configured one of the same major. That is this machine's MariaDB service when it answers
 * and runs our major.minor (read-only queries and session settings only: nothing is created there);
 * otherwise a mariadbd the test starts with none of our tuning flags and the two lines the official
 * image's configuration adds (character-set-server=utf8mb4, collation-server=utf8mb4_general_ci:
 * the image installs MariaDB's Debian packaging, whose 50-server.cnf sets them).
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../src/index.js';
import { findMysqlBinary, planEmbeddedMysql } from '../../../src/engines/mysql/embedded.js';
import { engineFor } from '../../../src/engines/index.js';
import { contextOf } from '../../../src/options/context.js';
import { acquireOwnedServer } from '../../../src/server/registry.js';
import { mysqlServerFlags } from '../../../src/engines/mysql/tuning.js';
import { privateDataRoot, removeDataRoot } from '../../core/helpers.js';

/**
 * Literals take the connection's collation: set it to the server's default, which is what a table
 * created without a COLLATE clause gets, so that the answers below show the server's collation.
 */
const SESSION = 'SET character_set_connection = @@character_set_server, collation_connection = @@collation_server';

const QUERIES: Record<string, string> = {
  'lower Cyrillic': `SELECT LOWER('ТЕСТ Ёлка')`,
  'upper German, Greek': `SELECT UPPER('straße ωμέγα')`,
  'LIKE is case-insensitive on Cyrillic': `SELECT 'ТЕСТ' LIKE 'тест'`,
  'equality ignores case and accents': `SELECT CONCAT('a' = 'A', 'e' = 'é', 'ß' = 'ss', 'abc' = 'abc  ')`,
  'ORDER BY mixed case and accents': `SELECT GROUP_CONCAT(v ORDER BY v, BINARY v SEPARATOR ' ') FROM (SELECT 'b' v UNION ALL SELECT 'A' UNION ALL SELECT 'a' UNION ALL SELECT 'B' UNION ALL SELECT 'é' UNION ALL SELECT 'e' UNION ALL SELECT 'É' UNION ALL SELECT 'z' UNION ALL SELECT '_x' UNION ALL SELECT 'x-y' UNION ALL SELECT 'xy' UNION ALL SELECT 'Ёж' UNION ALL SELECT 'еж' UNION ALL SELECT 'ж') t`,
  'DISTINCT folds case': `SELECT COUNT(DISTINCT v) FROM (SELECT 'тест' v UNION ALL SELECT 'ТЕСТ' UNION ALL SELECT 'Тест') t`,
  'server charset and collation': `SELECT CONCAT(@@character_set_server, ' ', @@collation_server)`,
  sql_mode: `SELECT @@sql_mode`,
  '|| and double quotes (PIPES_AS_CONCAT, ANSI_QUOTES)': `SELECT CONCAT('a' || 'b', ' ', "x")`,
  'division by zero': `SELECT COALESCE(1/0, 'NULL')`,
  'invalid date': `SELECT COALESCE(CAST('2024-02-30' AS DATE), 'NULL')`,
  'time zone': `SELECT CONCAT(@@time_zone, ' ', @@system_time_zone)`,
  FROM_UNIXTIME: `SELECT FROM_UNIXTIME(1717243200)`,
  'month and day names': `SELECT DATE_FORMAT('2024-03-05', '%W %M')`,
  'number formatting': `SELECT FORMAT(1234567.891, 2)`,
  'division precision': `SELECT 1/3`,
  lower_case_table_names: `SELECT @@lower_case_table_names`,
  explicit_defaults_for_timestamp: `SELECT @@explicit_defaults_for_timestamp`,
  default_storage_engine: `SELECT @@default_storage_engine`,
  group_concat_max_len: `SELECT @@group_concat_max_len`,
};

async function answers(c: mysql.Connection): Promise<Record<string, string>> {
  await c.query(SESSION);
  const out: Record<string, string> = {};
  for (const [name, sql] of Object.entries(QUERIES)) {
    const [rows] = await c.query({ sql, rowsAsArray: true });
    out[name] = String((rows as unknown[][])[0]![0]);
  }
  return out;
}

const majorMinor = (v: string) => v.split('.').slice(0, 2).join('.');

/** This machine's service, if it answers and runs our major.minor; else undefined. */
async function service(ours: string): Promise<mysql.Connection | undefined> {
  try {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', connectTimeout: 2000 });
    const [rows] = await c.query({ sql: 'SELECT VERSION()', rowsAsArray: true });
    if (majorMinor(String((rows as unknown[][])[0]![0])) === majorMinor(ours)) return c;
    await c.end();
  } catch {
    /* no service: start our own default-configured server */
  }
  return undefined;
}

/** A mariadbd with none of our tuning flags, configured as the official image is. */
async function defaultServer(dataRoot: string): Promise<mysql.Connection> {
  const context = contextOf({ dataRoot });
  const bin = findMysqlBinary(context);
  const tuning = new Set(mysqlServerFlags({ flavor: bin.flavor, version: bin.version }).map((f) => f.split('=')[0]));
  const info = await acquireOwnedServer({
    engine: 'mysql',
    identity: ['parity-default'],
    context,
    plan: async (ctx) => {
      const plan = await planEmbeddedMysql(ctx, context, engineFor('mysql'));
      const args = plan.server.args.filter((a) => !tuning.has(a.split('=')[0]!));
      args.push('--character-set-server=utf8mb4', '--collation-server=utf8mb4_general_ci');
      return { ...plan, server: { ...plan.server, args } };
    },
  });
  return mysql.createConnection({ socketPath: info.socket, user: info.user, password: info.password });
}

describe('MariaDB answers like a default-configured server of the same major', () => {
  const dataRoot = privateDataRoot('my-parity');
  let db: TestDatabase;
  let ours: mysql.Connection;
  let theirs: mysql.Connection;
  let theirsLabel = '';
  beforeAll(async () => {
    db = await createTestDatabase({ engine: 'mysql', dataRoot, worker: 'parity', cacheKey: 'parity' });
    ours = await mysql.createConnection({ uri: db.url });
    const svc = process.env.FAST_TEST_DB_PARITY_NO_SERVICE === '1' ? undefined : await service(db.server.version);
    theirs = svc ?? (await defaultServer(dataRoot));
    theirsLabel = svc ? "this machine's MariaDB service" : 'a mariadbd started without our flags';
  });
  afterAll(async () => {
    await ours?.end();
    await theirs?.end();
    await db?.destroy();
    await removeDataRoot(dataRoot);
  });

  it('ours is tuned', async () => {
    expect((await db.describe()).tuned).toBe(true);
  });

  it('every answer in the list is the same', async () => {
    const [a, b] = [await answers(ours), await answers(theirs)];
    expect(a['lower Cyrillic']).toBe('тест ёлка');
    expect({ against: theirsLabel, ...a }).toEqual({ against: theirsLabel, ...b });
  });

  it('the database we hand out has the server default collation', async () => {
    const [rows] = await ours.query({ sql: 'SELECT @@collation_database, @@collation_server', rowsAsArray: true });
    const [database, server] = (rows as string[][])[0]!;
    expect(database).toBe(server);
  });
});
