/**
 * One worker of the MariaDB class workload's suite, run as its own process (as paratest runs PHPUnit): classes
 * of tests, each test a burst of single-row autocommit writes and a couple of reads. Per-class mode
 * migrates a fresh database for every class (the write-up's "before"); fast-test-db mode gets one
 * database cloned from a template migrated once, and resets it between classes.
 * Prints one JSON line: { ms, classes, statements }.
 */
import mysql from 'mysql2/promise';
import type { ServerInfo } from '../../src/types.js';
import { quoteIdent } from '../../src/engines/quote.js';
import { fromDist } from '../lib/dist.js';
import { schemaStatements, TABLES } from './schema.js';

export interface SuiteConfig {
  mode: 'per-class' | 'ftdb';
  /** per-class: the server to use, and this worker's database name. */
  server?: ServerInfo;
  database?: string;
  classes: number;
  testsPerClass: number;
  rowsPerTest: number;
  /** ftdb: part of the fingerprint, so that every measured run builds its template once. */
  cacheKey?: string;
}

type Conn = mysql.Connection;

async function runTest(c: Conn, cls: number, test: number, rows: number): Promise<number> {
  let statements = 0;
  // Three tables per class, one chain: a parent row, then children pointing at it.
  const chain = TABLES.slice((cls % 10) * 3, (cls % 10) * 3 + 3);
  const [root] = await c.execute<mysql.ResultSetHeader>(
    `INSERT INTO ${quoteIdent('mysql', chain[0]!)} (parent_id, name, qty) VALUES (?, ?, ?)`,
    [1, `c${cls}t${test}`, test],
  );
  statements++;
  // Even rows are children of the class's root row, odd rows grandchildren under the last child.
  let child = 0;
  for (let r = 0; r < rows; r++) {
    const t = chain[1 + (r % 2)]!;
    const parent = r % 2 === 0 ? root.insertId : child;
    const [res] = await c.execute<mysql.ResultSetHeader>(
      `INSERT INTO ${quoteIdent('mysql', t)} (parent_id, name, qty, price) VALUES (?, ?, ?, ?)`,
      [parent, `row ${r}`, r, (r * 1.5).toFixed(2)],
    );
    if (r % 2 === 0) child = res.insertId;
    statements++;
  }
  await c.execute(`UPDATE ${quoteIdent('mysql', chain[0]!)} SET qty = qty + 1 WHERE id = ?`, [root.insertId]);
  await c.query(
    `SELECT count(*) AS n FROM ${quoteIdent('mysql', chain[1]!)} a JOIN ${quoteIdent('mysql', chain[0]!)} b ON a.parent_id = b.id`,
  );
  return statements + 2;
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.BENCH_MARIADB_CLASSES ?? '{}') as SuiteConfig;
  const started = performance.now();
  let statements = 0;
  if (cfg.mode === 'per-class') {
    const s = cfg.server!;
    const db = quoteIdent('mysql', cfg.database!);
    const c = await mysql.createConnection({ host: s.host, port: s.port, user: s.user, password: s.password, multipleStatements: false });
    for (let cls = 0; cls < cfg.classes; cls++) {
      // setUpBeforeClass: a fresh database with the whole schema and its seed rows.
      await c.query(`DROP DATABASE IF EXISTS ${db}`);
      await c.query(`CREATE DATABASE ${db}`);
      await c.query(`USE ${db}`);
      for (const stmt of schemaStatements()) await c.query(stmt);
      for (let t = 0; t < cfg.testsPerClass; t++) statements += await runTest(c, cls, t, cfg.rowsPerTest);
    }
    await c.query(`DROP DATABASE IF EXISTS ${db}`);
    await c.end();
  } else {
    const { createTestDatabase } = await fromDist<typeof import('../../src/index.js')>('index.js');
    const tdb = await createTestDatabase({
      engine: 'mysql',
      cacheKey: cfg.cacheKey,
      migrate: async (_url, ctx) => {
        const m = await mysql.createConnection({ ...ctx.connection });
        for (const stmt of schemaStatements()) await m.query(stmt);
        await m.end();
      },
    });
    const c = await mysql.createConnection({ ...tdb.connection });
    for (let cls = 0; cls < cfg.classes; cls++) {
      // Between classes: empty what the last class wrote, keep the seed rows.
      if (cls > 0) await tdb.reset();
      for (let t = 0; t < cfg.testsPerClass; t++) statements += await runTest(c, cls, t, cfg.rowsPerTest);
    }
    await c.end();
    await tdb.destroy();
  }
  process.stdout.write(JSON.stringify({ ms: performance.now() - started, classes: cfg.classes, statements }) + '\n');
}

main().catch((e) => {
  process.stderr.write(String((e as Error)?.stack ?? e) + '\n');
  process.exit(1);
});
