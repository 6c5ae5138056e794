/**
 * Drizzle insert paths, per row and in arrays, on the tuned servers fast-test-db starts:
 * db.insert().values(), the same with .returning() (PostgreSQL) / .$returningId() (MySQL),
 * fastInsert with and without returned rows, and the raw driver with a prepared statement.
 * Prints microseconds per row and ratios to raw; writes bench/results/drizzle-insert.json.
 *
 *   npx tsx bench/drizzle-insert.ts [--quick] [--engine postgres|mysql] [--driver pg|postgres-js|mysql2]
 *   (or BENCH_QUICK=1 BENCH_ENGINE=... BENCH_DRIVER=...)
 */
import { boolean as pgBoolean, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { boolean as myBoolean, int, mysqlTable, timestamp as myTimestamp, varchar } from 'drizzle-orm/mysql-core';
import { drizzleTestDb, fastInsert } from '../adapters/drizzle/index.js';
import { insertSql } from '../adapters/shared/insert-sql.js';
import { benchArg, quick, writeBenchResult } from './lib/args.js';

const ROWS = quick ? 500 : 2000;
const WARMUP = quick ? 100 : 300;
const ARRAY = 1000;
const ARRAY_REPEAT = quick ? 3 : 10;
const ROUNDS = quick ? 2 : 5;

const pgUsers = pgTable('bench_users', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  age: integer('age'),
  active: pgBoolean('active').notNull().default(true),
  createdAt: timestamp('created_at', { mode: 'date' }).notNull().defaultNow(),
});
const myUsers = mysqlTable('bench_users', {
  id: int('id').primaryKey().autoincrement(),
  name: varchar('name', { length: 100 }).notNull(),
  email: varchar('email', { length: 100 }).notNull(),
  age: int('age'),
  active: myBoolean('active').notNull().default(true),
  createdAt: myTimestamp('created_at', { mode: 'date' }).notNull().defaultNow(),
});

type Row = { name: string; email: string; age: number };
const row = (i: number): Row => ({ name: `user ${i}`, email: `u${i}@example.com`, age: 20 + (i % 50) });

interface Result {
  engine: string;
  driver: string;
  path: string;
  shape: 'per row' | `array of ${number}`;
  usPerRow: number;
  vsRaw?: number;
  cpuUsPerRow: number;
}

interface Round {
  /** Wall-clock microseconds per row. */
  us: number;
  /** CPU microseconds per row spent in this process (client-side cost, steady under load). */
  cpu: number;
}

async function timed(rows: number, body: () => Promise<void>): Promise<Round> {
  const cpu0 = process.cpuUsage();
  const started = process.hrtime.bigint();
  await body();
  const us = Number(process.hrtime.bigint() - started) / 1000 / rows;
  const cpu = process.cpuUsage(cpu0);
  return { us, cpu: (cpu.user + cpu.system) / rows };
}

const perRowRound = (fn: (r: Row) => Promise<unknown>) =>
  timed(ROWS, async () => {
    for (let i = 0; i < ROWS; i++) await fn(row(i));
  });

const arrayRows = Array.from({ length: ARRAY }, (_, i) => row(i));
const arrayRound = (fn: (rows: Row[]) => Promise<unknown>) =>
  timed(ARRAY * ARRAY_REPEAT, async () => {
    for (let i = 0; i < ARRAY_REPEAT; i++) await fn(arrayRows);
  });

async function benchDriver(driver: 'pg' | 'postgres-js' | 'mysql2'): Promise<Result[]> {
  const engine = driver === 'mysql2' ? 'mysql' : 'postgres';
  const table: any = engine === 'postgres' ? pgUsers : myUsers;
  const t = await drizzleTestDb({
    schema: { users: table },
    engine,
    driver,
    poolSize: 1,
    prefix: 'ftdbbench',
    suffix: `dzins${driver.replace('-', '')}`,
  } as any);
  const db = t.db as any;
  const client = db.$client;
  const cols = ['name', 'email', 'age'];
  const one = insertSql({ engine, table: ['bench_users'], columns: cols, rows: 1 });
  const oneReturning = insertSql({
    engine,
    table: ['bench_users'],
    columns: cols,
    rows: 1,
    returning: ['id', 'name', 'email', 'age', 'active', 'created_at'],
  });
  const many = insertSql({ engine, table: ['bench_users'], columns: cols, rows: ARRAY });
  const manyReturning = insertSql({
    engine,
    table: ['bench_users'],
    columns: cols,
    rows: ARRAY,
    returning: ['id', 'name', 'email', 'age', 'active', 'created_at'],
  });
  const flat = (rows: Row[]) => rows.flatMap((r) => [r.name, r.email, r.age]);

  // The raw driver, prepared, on the same pool: the floor fastInsert is measured against.
  const raw = (sql: string, name: string) => {
    if (driver === 'pg') return (values: unknown[]) => client.query({ name, text: sql, values });
    if (driver === 'postgres-js') return (values: unknown[]) => client.unsafe(sql, values, { prepare: true });
    return (values: unknown[]) => client.execute(sql, values);
  };
  const rawOne = raw(one, 'raw_one');
  const rawOneReturning = raw(oneReturning, 'raw_one_ret');
  const rawMany = raw(many, 'raw_many');
  const rawManyReturning = raw(manyReturning, 'raw_many_ret');

  const results: Result[] = [];
  const returns = engine === 'postgres' ? 'RETURNING' : undefined;
  // Paths that hand rows back are compared with the raw statement that does the same.
  type Path = [path: string, run: (r: any) => Promise<unknown>, baseline: string];
  const RAW = 'raw driver, prepared';
  const RAW_RET = returns ? `${RAW}, RETURNING` : RAW;
  const drizzleReturning = engine === 'postgres' ? 'db.insert().values().returning()' : 'db.insert().values().$returningId()';
  const perRow: Path[] = [
    [RAW, (r: Row) => rawOne([r.name, r.email, r.age]), RAW],
    ...(returns ? [[RAW_RET, (r: Row) => rawOneReturning([r.name, r.email, r.age]), RAW_RET] as Path] : []),
    ['db.insert().values()', (r: Row) => db.insert(table).values(r), RAW],
    [
      drizzleReturning,
      (r: Row) => (engine === 'postgres' ? db.insert(table).values(r).returning() : db.insert(table).values(r).$returningId()),
      RAW_RET,
    ],
    ['fastInsert', (r: Row) => fastInsert(db, table, r), RAW_RET],
    ['fastInsert, returning: false', (r: Row) => fastInsert(db, table, r, { returning: false }), RAW],
  ];
  const arrays: Path[] = [
    [RAW, (rows: Row[]) => rawMany(flat(rows)), RAW],
    ...(returns ? [[RAW_RET, (rows: Row[]) => rawManyReturning(flat(rows)), RAW_RET] as Path] : []),
    ['db.insert().values()', (rows: Row[]) => db.insert(table).values(rows), RAW],
    [
      drizzleReturning,
      (rows: Row[]) => (engine === 'postgres' ? db.insert(table).values(rows).returning() : db.insert(table).values(rows).$returningId()),
      RAW_RET,
    ],
    ['fastInsert', (rows: Row[]) => fastInsert(db, table, rows), RAW_RET],
    ['fastInsert, returning: false', (rows: Row[]) => fastInsert(db, table, rows, { returning: false }), RAW],
  ];
  // Rounds go round-robin over the paths and each path keeps its best round, so that load from
  // elsewhere on the machine does not land on one path only.
  const measure = async (
    paths: Path[],
    shape: Result['shape'],
    round: (fn: (x: any) => Promise<unknown>) => Promise<Round>,
    warmup: (fn: (x: any) => Promise<unknown>) => Promise<unknown>,
  ) => {
    for (const [, fn] of paths) await warmup(fn);
    const best = paths.map(() => ({ us: Infinity, cpu: Infinity }));
    for (let r = 0; r < ROUNDS; r++) {
      await t.database.reset();
      for (const [i, [, fn]] of paths.entries()) {
        const got = await round(fn);
        best[i] = { us: Math.min(best[i]!.us, got.us), cpu: Math.min(best[i]!.cpu, got.cpu) };
      }
    }
    const tenth = (n: number) => Math.round(n * 10) / 10;
    const mine: Result[] = paths.map(([path], i) => ({
      engine,
      driver,
      path,
      shape,
      usPerRow: tenth(best[i]!.us),
      cpuUsPerRow: tenth(best[i]!.cpu),
    }));
    for (const [i, [, , baseline]] of paths.entries()) {
      const base = mine.find((b) => b.path === baseline)!;
      mine[i]!.vsRaw = Math.round((mine[i]!.usPerRow / base.usPerRow) * 100) / 100;
    }
    results.push(...mine);
  };
  await measure(perRow, 'per row', perRowRound, async (fn) => {
    for (let i = 0; i < WARMUP; i++) await fn(row(i));
  });
  await measure(arrays, `array of ${ARRAY}`, arrayRound, (fn) => fn(arrayRows));
  await t[Symbol.asyncDispose]();
  return results;
}

/**
 * fastInsert's own cost per row, with a driver client that answers at once: what it adds to a
 * raw prepared statement, measured without the server (and without the machine's load on it).
 */
async function ownCost(driver: 'pg' | 'mysql2'): Promise<Result> {
  const mod: any = await import(driver === 'pg' ? 'drizzle-orm/node-postgres' : 'drizzle-orm/mysql2');
  const stub =
    driver === 'pg'
      ? { query: async () => ({ rows: [[1, 'n', 'e', 1, true, '2024-01-01 00:00:00']], rowCount: 1 }) }
      : { execute: async () => [{ insertId: 1, affectedRows: 1 }] };
  const db = mod.drizzle(stub);
  const table: any = driver === 'pg' ? pgUsers : myUsers;
  const n = quick ? 20_000 : 100_000;
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fastInsert(db, table, row(i));
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / n);
  }
  const us = Math.round(best * 100) / 100;
  return {
    engine: driver === 'pg' ? 'postgres' : 'mysql',
    driver,
    path: 'fastInsert own cost (driver stub)',
    shape: 'per row',
    usPerRow: us,
    cpuUsPerRow: us,
  };
}

const engineArg = benchArg('engine');
const driverArg = benchArg('driver');
const drivers = (['pg', 'postgres-js', 'mysql2'] as const).filter(
  (d) => (!driverArg || d === driverArg) && (!engineArg || (d === 'mysql2') === (engineArg === 'mysql')),
);

const all: Result[] = [];
for (const driver of drivers) {
  const results = await benchDriver(driver);
  all.push(...results);
  process.stdout.write(
    `\n${results[0]!.engine} via ${driver} (${ROWS} rows per row-path, best of ${ROUNDS}; x raw: against the raw statement that returns the same)\n`,
  );
  process.stdout.write(
    `${'path'.padEnd(40)} ${'shape'.padEnd(14)} ${'us/row'.padStart(8)} ${'x raw'.padStart(6)} ${'cpu us/row'.padStart(11)}\n`,
  );
  for (const r of results) {
    process.stdout.write(
      `${r.path.padEnd(40)} ${r.shape.padEnd(14)} ${r.usPerRow.toFixed(1).padStart(8)} ${(r.vsRaw?.toFixed(2) ?? '').padStart(6)} ${r.cpuUsPerRow.toFixed(1).padStart(11)}\n`,
    );
  }
}

for (const driver of (['pg', 'mysql2'] as const).filter((d) => drivers.includes(d))) {
  const r = await ownCost(driver);
  all.push(r);
  process.stdout.write(`\n${r.path} via ${driver}: ${r.usPerRow.toFixed(2)} us per row`);
}
process.stdout.write('\n');

writeBenchResult('drizzle-insert', { rows: ROWS, arraySize: ARRAY, results: all });
process.exit(0);
