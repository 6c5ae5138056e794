/**
 * Shape (i): the seed's repository, database-bound: 4 Jest files in band (ts-jest) that insert
 * `Point` rows through TypeORM's save(), one at a time (10,000, 2 x 10,000, 3 x 10,000) and
 * 10,000 started together, each file opening its own DataSource with synchronize and dropSchema,
 * unchanged between the legs: the suite as it is, adopted. (The `typeorm-jest` section takes the
 * same workload step by step against a server the bench starts; this is it on the machine's
 * service, beside the other shapes.)
 */
import { jestBase, markModule, put, tsJestConfig } from './write.js';

export function writeInserts(dir: string, scale: { files: number; rows?: number }): void {
  const rows = scale.rows ?? 10_000;
  tsJestConfig(dir);
  put(dir, 'test/mark.ts', markModule('jest'));
  put(
    dir,
    'src/point.ts',
    `import 'reflect-metadata';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
@Entity('point')
export class Point {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'int' }) amount!: number;
  @Column({ type: 'varchar', length: 64, default: 'bench' }) description!: string;
  static of(amount: number): Point {
    const p = new Point();
    p.amount = amount;
    return p;
  }
}
`,
  );
  put(
    dir,
    'src/data-source.ts',
    `import { DataSource } from 'typeorm';
import { Point } from './point';
export function dataSource(): DataSource {
  // Every file starts from an empty schema, as the seed's test helper did.
  return new DataSource({ type: 'postgres', url: process.env.APP_DATABASE_URL, entities: [Point], synchronize: true, dropSchema: true, logging: false });
}
`,
  );
  // Files 1-3 insert 1, 2 and 3 batches one row at a time; the last starts one batch at once.
  for (let f = 1; f <= scale.files; f++) {
    const together = f === scale.files && scale.files > 1;
    const batches = together ? 1 : f;
    put(
      dir,
      `test/f${f}.test.ts`,
      `import './mark';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { dataSource } from '../src/data-source';
import { Point } from '../src/point';
let ds: DataSource;
beforeAll(async () => {
  ds = await dataSource().initialize();
});
afterAll(() => ds.destroy());
describe('Point, ${batches} x ${rows}${together ? ' at once' : ''}', () => {
${Array.from({ length: batches }, (_, b) =>
  together
    ? `  it('inserts ${rows} points with Promise.all', async () => {
    const repo = ds.getRepository(Point);
    await Promise.all(Array.from({ length: ${rows} }, (_, key) => repo.save(Point.of(key * 1000))));
    expect(await repo.count()).toBe(${rows});
  });`
    : `  it('inserts ${rows} points one at a time (batch ${b + 1})', async () => {
    const repo = ds.getRepository(Point);
    for (let key = 0; key < ${rows}; key++) await repo.save(Point.of(key * 1000));
    expect(await repo.count()).toBe(${rows * (b + 1)});
  });`,
).join('\n')}
});
`,
    );
  }
  // In band, as the seed's package.json ran it; a test may take minutes on a durable server.
  const base = `{ ...${jestBase('test/*.test.ts')}, maxWorkers: 1, testTimeout: 900000 }`;
  put(dir, 'jest.plain.config.cjs', `module.exports = ${base};\n`);
  put(
    dir,
    'jest.ftdb.config.cjs',
    `const { withFastTestDb } = require('fast-test-db/jest');
module.exports = withFastTestDb(${base}, { engine: 'postgres', envVar: 'APP_DATABASE_URL', cacheKey: 'bench-rs-inserts', async migrate() {} });
`,
  );
}
