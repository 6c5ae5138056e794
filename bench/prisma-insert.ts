/**
 * Prisma 7 insert paths, per row and in arrays of 1,000, on the tuned servers fast-test-db starts:
 * create(), createMany(), createManyAndReturn() (PostgreSQL), fastInsert with and without returned
 * rows, and the raw driver running the same INSERT as a prepared statement on a pool of the same size.
 * On PostgreSQL also the client side alone (a pool stub): what fastInsert adds to the raw driver.
 * Prints microseconds per row and ratios to raw; writes bench/results/prisma-insert.json.
 *
 *   npx tsx bench/prisma-insert.ts [--quick] [--engine postgres|mysql]
 *   (or BENCH_QUICK=1 BENCH_ENGINE=...)
 */
import { readFileSync } from 'node:fs';
import { openDriver, pgDriverOn } from '../adapters/prisma/driver.js';
import { fastInsert, prismaTestDb } from '../adapters/prisma/index.js';
import { insertSql } from '../adapters/shared/insert-sql.js';
import { benchArg, quick, writeBenchResult } from './lib/args.js';
import { driverConnection } from '../adapters/shared/connection.js';
import { quoteIdent } from '../src/engines/quote.js';
import { ensureGenerated } from '../test/adapters/prisma/generate.js';

const ROWS = quick ? 500 : 2000;
const WARMUP = quick ? 100 : 300;
const ARRAY = 1000;
const ARRAY_REPEAT = quick ? 2 : 5;
const ROUNDS = quick ? 2 : 5;

type Engine = 'postgres' | 'mysql';
type Row = { email: string; name: string; score: number };
let serial = 0;
/** Unique emails across paths and rounds: `email` is a unique column. */
const row = (): Row => {
  const i = serial++;
  return { email: `u${i}@example.com`, name: `user ${i}`, score: i % 100 };
};

interface Result {
  engine: Engine;
  path: string;
  shape: 'per row' | `array of ${number}`;
  usPerRow: number;
  vsRaw?: number;
  baseline?: string;
  /** CPU microseconds per row spent in this process (client-side cost, steadier under load). */
  cpuUsPerRow?: number;
}

/** The PostgreSQL bench's client: the driver-stub measurement needs its runtime data model. */
let postgresClient: object | undefined;

async function bench(engine: Engine): Promise<Result[]> {
  const out = ensureGenerated(`test/adapters/prisma/zoo/${engine}/schema.prisma`);
  const { PrismaClient } = (await import(/* @vite-ignore */ `${out}/client.ts`)) as { PrismaClient: new (o: { adapter: never }) => any };
  // One connection, so that every path pays for the same round trips.
  const t = await prismaTestDb({
    client: PrismaClient,
    schema: `test/adapters/prisma/zoo/${engine}/schema.prisma`,
    poolSize: 1,
    prefix: 'ftdbbench',
    suffix: 'prismains',
  });
  const prisma = t.prisma;
  if (engine === 'postgres') postgresClient = prisma;
  await prisma.$connect();
  const pg = engine === 'postgres';
  // The raw path's own pool, of one connection too: the client's pool is the client's business. It
  // connects as the client does (over the server's socket on PostgreSQL), so both pay the same transport.
  const raw = await openDriver(driverConnection(t.database), t.database.server.flavor, { max: 1 });
  const pool = raw.pool as any;

  // The raw statement writes what create() and fastInsert write for these rows: the given
  // columns plus the defaults Prisma fills in (role, created_at, updated_at, balance, active).
  const cols = ['email', 'name', 'role', 'created_at', 'updated_at', 'balance', 'score', 'active'];
  const all = [
    'id',
    'email',
    'name',
    'role',
    'created_at',
    'updated_at',
    'balance',
    'big',
    'avatar',
    'profile',
    'score',
    'active',
    ...(pg ? ['tags', 'roles'] : []),
  ];
  const values = (r: Row, now: string) => [r.email, r.name, 'USER', now, now, '0', r.score, pg ? true : 1];
  const stamp = () => {
    const s = new Date().toISOString().replace('T', ' ').replace('Z', '');
    return pg ? `${s}+00:00` : s;
  };
  const one = insertSql({ engine, table: ['accounts'], columns: cols, rows: 1 });
  let oneReturning = insertSql({ engine, table: ['accounts'], columns: cols, rows: 1, returning: all });
  if (!pg) oneReturning += ` RETURNING ${all.map((c) => quoteIdent('mysql', c)).join(', ')}`;
  const many = insertSql({ engine, table: ['accounts'], columns: cols, rows: ARRAY });
  // On MySQL/MariaDB fastInsert reads the keys from insertId, so its raw array baseline is the plain INSERT.
  const manyReturning = insertSql({ engine, table: ['accounts'], columns: cols, rows: ARRAY, returning: all });
  const exec = (sql: string, name: string) =>
    pg ? (v: unknown[]) => pool.query({ name, text: sql, values: v }) : (v: unknown[]) => pool.execute(sql, v);
  const rawOne = exec(one, 'raw_one');
  const rawOneReturning = exec(oneReturning, 'raw_one_ret');
  const rawMany = exec(many, 'raw_many');
  const rawManyReturning = exec(manyReturning, 'raw_many_ret');

  const RAW = 'raw driver, prepared';
  const RAW_RET = `${RAW}, RETURNING`;
  type Path = [path: string, run: (x: any) => Promise<unknown>, baseline: string];
  const perRow: Path[] = [
    [RAW, (r: Row) => rawOne(values(r, stamp())), RAW],
    [RAW_RET, (r: Row) => rawOneReturning(values(r, stamp())), RAW_RET],
    ['prisma.account.create()', (r: Row) => prisma.account.create({ data: r }), RAW_RET],
    ['prisma.account.createMany()', (r: Row) => prisma.account.createMany({ data: [r] }), RAW],
    ['fastInsert', (r: Row) => fastInsert(prisma.account, [r]), RAW_RET],
    ['fastInsert, returning: false', (r: Row) => fastInsert(prisma.account, [r], { returning: false }), RAW],
  ];
  const arrays: Path[] = [
    [RAW, (rows: Row[]) => rawMany(rows.flatMap((r) => values(r, stamp()))), RAW],
    ...(pg ? [[RAW_RET, (rows: Row[]) => rawManyReturning(rows.flatMap((r) => values(r, stamp()))), RAW_RET] as Path] : []),
    [
      'create() per row, sequential',
      async (rows: Row[]) => {
        for (const r of rows) await prisma.account.create({ data: r });
      },
      RAW,
    ],
    ['createMany()', (rows: Row[]) => prisma.account.createMany({ data: rows }), RAW],
    ...(pg ? [['createManyAndReturn()', (rows: Row[]) => prisma.account.createManyAndReturn({ data: rows }), RAW_RET] as Path] : []),
    ['fastInsert', (rows: Row[]) => fastInsert(prisma.account, rows), pg ? RAW_RET : RAW],
    ['fastInsert, returning: false', (rows: Row[]) => fastInsert(prisma.account, rows, { returning: false }), RAW],
  ];

  const perRowRound = async (fn: (r: Row) => Promise<unknown>) => {
    const rows = Array.from({ length: ROWS }, row);
    const cpu0 = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (const r of rows) await fn(r);
    const cpu = process.cpuUsage(cpu0);
    return { us: Number(process.hrtime.bigint() - started) / 1000 / ROWS, cpu: (cpu.user + cpu.system) / ROWS };
  };
  const arrayRound = async (fn: (rows: Row[]) => Promise<unknown>) => {
    const batches = Array.from({ length: ARRAY_REPEAT }, () => Array.from({ length: ARRAY }, row));
    const cpu0 = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (const b of batches) await fn(b);
    const cpu = process.cpuUsage(cpu0);
    return {
      us: Number(process.hrtime.bigint() - started) / 1000 / (ARRAY * ARRAY_REPEAT),
      cpu: (cpu.user + cpu.system) / (ARRAY * ARRAY_REPEAT),
    };
  };

  const results: Result[] = [];
  // Rounds go round-robin over the paths and each keeps its best round, so that load from
  // elsewhere on the machine does not land on one path only.
  const measure = async (
    paths: Path[],
    shape: Result['shape'],
    round: (fn: (x: any) => Promise<unknown>) => Promise<{ us: number; cpu: number }>,
    warm: (fn: (x: any) => Promise<unknown>) => Promise<unknown>,
  ) => {
    for (const [, fn] of paths) await warm(fn);
    const best = paths.map(() => ({ us: Infinity, cpu: Infinity }));
    for (let r = 0; r < ROUNDS; r++) {
      await t.database.reset();
      for (const [i, [, fn]] of paths.entries()) {
        const got = await round(fn);
        best[i] = { us: Math.min(best[i]!.us, got.us), cpu: Math.min(best[i]!.cpu, got.cpu) };
      }
    }
    const tenth = (n: number) => Math.round(n * 10) / 10;
    const mine: Result[] = paths.map(([path, , baseline], i) => ({
      engine,
      path,
      shape,
      usPerRow: tenth(best[i]!.us),
      baseline,
      cpuUsPerRow: tenth(best[i]!.cpu),
    }));
    for (const m of mine) m.vsRaw = Math.round((m.usPerRow / mine.find((b) => b.path === m.baseline)!.usPerRow) * 100) / 100;
    results.push(...mine);
  };
  await measure(perRow, 'per row', perRowRound, async (fn) => {
    for (let i = 0; i < WARMUP; i++) await fn(row());
  });
  await measure(arrays, `array of ${ARRAY}`, arrayRound, (fn) => fn(Array.from({ length: ARRAY }, row)));
  await raw.end();
  await t[Symbol.asyncDispose]();
  return results;
}

/**
 * The client side of one per-row insert on PostgreSQL, without the server: a pool stub that
 * handles the query config and parses a RETURNING row the way node-postgres does (its own Result
 * class, the same type OIDs as `accounts`), for the raw statement and for fastInsert. CPU time,
 * best of ROUNDS: what fastInsert adds to the raw driver, steady whatever else the machine runs.
 */
async function ownCost(): Promise<Result[]> {
  const pg = (await import('pg')).default;
  const Result = (await import('pg/lib/result.js' as string)).default as new (
    rowMode: unknown,
    types: unknown,
  ) => { addFields(f: unknown[]): void; parseRow(r: unknown[]): unknown; addRow(r: unknown): void };
  const utils = (await import('pg/lib/utils.js' as string)).default as {
    normalizeQueryConfig(c: unknown): { rowMode?: unknown; types?: unknown };
  };
  const { buildContext } = await import('../adapters/prisma/context.js');
  const { insertRows } = await import('../adapters/prisma/fast-insert.js');
  const { parsePrismaSchema } = await import('../adapters/prisma/schema.js');
  const schema = parsePrismaSchema(readFileSync('test/adapters/prisma/zoo/postgres/schema.prisma', 'utf8'));
  // id, email, name, role (enum), created_at, updated_at, balance, big, avatar, profile, score, active, tags, roles (enum[])
  const oids = [23, 25, 25, 16390, 1114, 1114, 1700, 20, 17, 3802, 701, 16, 1009, 16391];
  const fields = oids.map((dataTypeID, i) => ({ name: `c${i}`, dataTypeID, format: 'text' }));
  const text = [
    '1',
    'u1@example.com',
    'user 1',
    'USER',
    '2026-11-30 08:00:00.123',
    '2026-11-30 08:00:00.123',
    '0.00',
    null,
    null,
    null,
    '3',
    't',
    '{}',
    '{}',
  ];
  const pool = {
    query: async (config: unknown) => {
      const c = utils.normalizeQueryConfig(config);
      const r = new Result(c.rowMode, c.types);
      r.addFields(fields);
      r.addRow(r.parseRow(text));
      return r;
    },
  };
  const ctx = await buildContext(
    postgresClient!,
    schema,
    pgDriverOn(pool, pg as never, {}, async () => {}),
  );
  const n = quick ? 20_000 : 100_000;
  const stamp = () => `${new Date().toISOString().replace('T', ' ').replace('Z', '')}+00:00`;
  const paths: Array<[string, (r: Row) => Promise<unknown>]> = [
    [
      'raw driver own cost (driver stub)',
      (r) => {
        const now = stamp();
        return pool.query({ name: 'raw_one_ret', text: 'INSERT', values: [r.email, r.name, 'USER', now, now, '0', r.score, true] });
      },
    ],
    ['fastInsert own cost (driver stub)', (r) => insertRows(ctx, 'Account', [r])],
  ];
  const best = paths.map(() => Infinity);
  for (let round = 0; round < ROUNDS + 2; round++) {
    for (const [i, [, fn]] of paths.entries()) {
      const rows = Array.from({ length: n }, row);
      const cpu0 = process.cpuUsage();
      for (const r of rows) await fn(r);
      const cpu = process.cpuUsage(cpu0);
      best[i] = Math.min(best[i]!, (cpu.user + cpu.system) / n);
    }
  }
  return paths.map(([path], i) => ({
    engine: 'postgres',
    path,
    shape: 'per row',
    usPerRow: Math.round(best[i]! * 100) / 100,
    vsRaw: Math.round((best[i]! / best[0]!) * 100) / 100,
  }));
}

const engines = (['postgres', 'mysql'] as const).filter((e) => !benchArg('engine') || e === benchArg('engine'));
const all: Result[] = [];
for (const engine of engines) {
  const results = await bench(engine);
  all.push(...results);
  process.stdout.write(`\n${engine === 'postgres' ? 'PostgreSQL' : 'MySQL/MariaDB'} (${ROWS} rows per row-path, best of ${ROUNDS})\n`);
  process.stdout.write(
    `${'path'.padEnd(34)} ${'shape'.padEnd(14)} ${'us/row'.padStart(8)} ${'x raw'.padStart(6)} ${'cpu us/row'.padStart(11)}  (x raw: against the raw statement that returns the same)\n`,
  );
  for (const r of results)
    process.stdout.write(
      `${r.path.padEnd(34)} ${r.shape.padEnd(14)} ${r.usPerRow.toFixed(1).padStart(8)} ${(r.vsRaw?.toFixed(2) ?? '').padStart(6)} ${(r.cpuUsPerRow?.toFixed(1) ?? '').padStart(11)}\n`,
    );
}

if (engines.includes('postgres')) {
  const own = await ownCost();
  all.push(...own);
  process.stdout.write(`\nClient side only (a pool stub parsing a RETURNING row as node-postgres does; CPU us per row):\n`);
  for (const r of own)
    process.stdout.write(`${r.path.padEnd(34)} ${r.usPerRow.toFixed(2).padStart(8)} ${r.vsRaw!.toFixed(2).padStart(6)}\n`);
}

writeBenchResult('prisma-insert', { rows: ROWS, arraySize: ARRAY, results: all });
process.exit(0);
