/**
 * TypeORM insert paths, per row and in arrays of 1,000, on the tuned server fast-test-db starts:
 * repository.save(), repository.insert(), fastInsert, and the raw driver with a prepared statement
 * on the same pool (pg: with and without RETURNING id, since fastInsert returns the key).
 * Prints microseconds per row and ratios to raw; writes bench/results/typeorm-insert.json.
 *
 *   npx tsx bench/typeorm-insert.ts [--quick] [--engine postgres|mysql]
 *   (or BENCH_QUICK=1 BENCH_ENGINE=...)
 */
import 'reflect-metadata';
import { Column, Entity, PrimaryGeneratedColumn, type Repository } from 'typeorm';
import { fastInsert, typeormTestDb } from '../adapters/typeorm/index.js';
import { insertSql } from '../adapters/shared/insert-sql.js';
import { benchArg, quick, writeBenchResult } from './lib/args.js';

/** Rows per slice, slices per path (see interleaved()). */
const ROWS = 200;
const WARMUP = 1000;
const ARRAY = 1000;
const ARRAY_REPEAT = 2;
const ROUNDS = quick ? 5 : 25;

/** The TypeORM workload's entity. */
@Entity('point')
class Point {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'int' }) x!: number;
  @Column({ type: 'int' }) y!: number;
}

type Row = { x: number; y: number };
const row = (i: number): Row => ({ x: i, y: -i });

interface Result {
  engine: string;
  path: string;
  shape: 'per row' | `array of ${number}`;
  usPerRow: number;
  /** CPU this (client) process spent per row: the part of the cost that is ours, and steadier than wall time on a busy machine. */
  clientCpuUsPerRow: number;
  vsRaw?: number;
  vsRawReturning?: number;
}

/**
 * Paths take turns, a slice each per round, and each path's figure is its median slice: on a
 * shared machine, load that comes and goes then hits every path alike instead of whichever ran during it.
 */
async function interleaved<T>(
  paths: Array<[string, (x: T) => Promise<unknown>]>,
  make: (i: number) => T,
  perSlice: number,
  perRow: number,
): Promise<Map<string, { wall: number; cpu: number }>> {
  for (const [, fn] of paths) for (let i = 0; i < WARMUP / perRow; i++) await fn(make(i));
  const samples = new Map<string, { wall: number[]; cpu: number[] }>(paths.map(([p]) => [p, { wall: [], cpu: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [path, fn] of paths) {
      const inputs = Array.from({ length: perSlice }, (_, i) => make(i));
      const cpu0 = process.cpuUsage();
      const started = process.hrtime.bigint();
      for (const x of inputs) await fn(x);
      const wall = Number(process.hrtime.bigint() - started) / 1000;
      const cpu = process.cpuUsage(cpu0);
      samples.get(path)!.wall.push(wall / (perSlice * perRow));
      samples.get(path)!.cpu.push((cpu.user + cpu.system) / (perSlice * perRow));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return new Map([...samples].map(([p, x]) => [p, { wall: median(x.wall), cpu: median(x.cpu) }]));
}

async function benchEngine(engine: 'postgres' | 'mysql'): Promise<Result[]> {
  const t = await typeormTestDb(
    { type: engine === 'postgres' ? 'postgres' : 'mariadb', entities: [Point] },
    { prefix: 'ftdbbench', suffix: 'toins' },
  );
  const repo: Repository<Point> = t.dataSource.getRepository(Point);
  const one = insertSql({ engine, table: ['point'], columns: ['x', 'y'], rows: 1 });
  const oneReturning = insertSql({ engine, table: ['point'], columns: ['x', 'y'], rows: 1, returning: ['id'] });
  const many = insertSql({ engine, table: ['point'], columns: ['x', 'y'], rows: ARRAY });
  const manyReturning = insertSql({ engine, table: ['point'], columns: ['x', 'y'], rows: ARRAY, returning: ['id'] });
  const flat = (rows: Row[]) => rows.flatMap((r) => [r.x, r.y]);

  // The raw driver, prepared, on the DataSource's own pool: the floor fastInsert is measured against.
  const driver = t.dataSource.driver as any;
  const raw = (text: string, name: string) =>
    engine === 'postgres'
      ? (values: unknown[]) => driver.master.query({ name, text, values })
      : (values: unknown[]) =>
          new Promise((res, rej) => driver.pool.execute(text, values, (e: Error | null, r: unknown) => (e ? rej(e) : res(r))));

  const results: Result[] = [];
  const add = (path: string, shape: Result['shape'], m: { wall: number; cpu: number }) =>
    results.push({ engine, path, shape, usPerRow: Math.round(m.wall * 10) / 10, clientCpuUsPerRow: Math.round(m.cpu * 10) / 10 });
  const perRow: Array<[string, (r: Row) => Promise<unknown>]> = [
    ['raw driver, prepared', (r) => raw(one, 'raw_one')([r.x, r.y])],
    ...(engine === 'postgres'
      ? [
          ['raw driver, prepared, RETURNING id', (r: Row) => raw(oneReturning, 'raw_one_ret')([r.x, r.y])] as [
            string,
            (r: Row) => Promise<unknown>,
          ],
        ]
      : []),
    ['repository.save()', (r) => repo.save(repo.create(r))],
    ['repository.insert()', (r) => repo.insert(r)],
    ['fastInsert', (r) => fastInsert(repo, r)],
    ...(engine === 'postgres'
      ? [['fastInsert, returning: false', (r: Row) => fastInsert(repo, r, { returning: false })] as [string, (r: Row) => Promise<unknown>]]
      : []),
  ];
  await t.database.reset();
  for (const [path, m] of await interleaved(perRow, row, ROWS, 1)) add(path, 'per row', m);
  const arrays: Array<[string, (rows: Row[]) => Promise<unknown>]> = [
    ['raw driver, prepared', (rows) => raw(many, 'raw_many')(flat(rows))],
    ...(engine === 'postgres'
      ? [
          ['raw driver, prepared, RETURNING id', (rows: Row[]) => raw(manyReturning, 'raw_many_ret')(flat(rows))] as [
            string,
            (rows: Row[]) => Promise<unknown>,
          ],
        ]
      : []),
    ['repository.save()', (rows) => repo.save(rows.map((r) => repo.create(r)))],
    ['repository.insert()', (rows) => repo.insert(rows)],
    ['fastInsert', (rows) => fastInsert(repo, rows)],
    ...(engine === 'postgres'
      ? [
          ['fastInsert, returning: false', (rows: Row[]) => fastInsert(repo, rows, { returning: false })] as [
            string,
            (rows: Row[]) => Promise<unknown>,
          ],
        ]
      : []),
  ];
  await t.database.reset();
  const batch = () => Array.from({ length: ARRAY }, (_, i) => row(i));
  for (const [path, m] of await interleaved(arrays, batch, ARRAY_REPEAT, ARRAY)) add(path, `array of ${ARRAY}`, m);
  await t.dataSource.destroy();
  await t.database.destroy();

  for (const r of results) {
    const base = results.find((b) => b.shape === r.shape && b.path === 'raw driver, prepared');
    const baseRet = results.find((b) => b.shape === r.shape && b.path === 'raw driver, prepared, RETURNING id');
    if (base) r.vsRaw = Math.round((r.usPerRow / base.usPerRow) * 100) / 100;
    if (baseRet) r.vsRawReturning = Math.round((r.usPerRow / baseRet.usPerRow) * 100) / 100;
  }
  return results;
}

const engineArg = benchArg('engine');
const engines = (['postgres', 'mysql'] as const).filter((e) => !engineArg || e === engineArg);
const all: Result[] = [];
for (const engine of engines) {
  const results = await benchEngine(engine);
  all.push(...results);
  process.stdout.write(`\n${engine} (median of ${ROUNDS} interleaved slices: ${ROWS} single rows, or ${ARRAY_REPEAT} arrays)\n`);
  process.stdout.write(
    `${'path'.padEnd(36)} ${'shape'.padEnd(14)} ${'us/row'.padStart(8)} ${'x raw'.padStart(6)} ${'x raw+RET'.padStart(9)} ${'client cpu us/row'.padStart(18)}\n`,
  );
  for (const r of results)
    process.stdout.write(
      `${r.path.padEnd(36)} ${r.shape.padEnd(14)} ${r.usPerRow.toFixed(1).padStart(8)} ${(r.vsRaw?.toFixed(2) ?? '').padStart(6)} ${(r.vsRawReturning?.toFixed(2) ?? '').padStart(9)} ${r.clientCpuUsPerRow.toFixed(1).padStart(18)}\n`,
    );
}

writeBenchResult('typeorm-insert', { rows: ROWS, rounds: ROUNDS, arraySize: ARRAY, results: all });
process.exit(0);
