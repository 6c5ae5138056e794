/**
 * Statement timing on postgres.js (both its ES module and CommonJS copies) against a PostgreSQL
 * started by the library: tagged and `unsafe` queries, a transaction's statements, a failed query and
 * a cursor are each counted once and leave nothing in flight; concurrent queries are not counted
 * twice; results are what the driver returns.
 */
import { createRequire } from 'node:module';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../src/index.js';
import { instrumentDrivers, timingSince, timingSnapshot } from '../../../src/reporters/query-timing.js';
import { privateDataRoot, removeDataRoot } from '../../core/helpers.js';

const dataRoot = privateDataRoot('pg-timing');
const load = createRequire(import.meta.url);
let db: TestDatabase;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await createTestDatabase({ engine: 'postgres', dataRoot, prefix: 'ftpgt', cacheKey: 'timing-v1' });
  const got = instrumentDrivers(load);
  expect(got.timed).toContain('postgres');
  expect(got.unseen).not.toContain('postgres');
  sql = postgres(db.url, { max: 3, onnotice: () => {} });
  // Open the three connections first: each new one also runs postgres.js's own type query (counted too).
  await Promise.all([sql`SELECT pg_sleep(0.01)`, sql`SELECT pg_sleep(0.01)`, sql`SELECT pg_sleep(0.01)`]);
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await db?.destroy({ force: true });
  await removeDataRoot(dataRoot);
});

async function counted(fn: () => Promise<unknown>): Promise<{ queries: number; busyMs: number }> {
  const start = timingSnapshot();
  await fn();
  return timingSince(start);
}

it('tagged and unsafe queries: each counted once, with its time in flight, results unchanged', async () => {
  let rows: unknown;
  const t = await counted(async () => {
    rows = await sql`SELECT ${1}::int AS one, pg_sleep(0.02)`;
    await sql.unsafe('SELECT 2 AS two');
  });
  expect((rows as Array<{ one: number }>)[0]!.one).toBe(1);
  expect(t.queries).toBe(2);
  expect(t.busyMs).toBeGreaterThanOrEqual(19);
});

it('a query built but never awaited is not counted', async () => {
  const t = await counted(async () => {
    void sql`SELECT 1`.describe;
  });
  expect(t.queries).toBe(0);
});

it('a transaction counts its BEGIN, statements and COMMIT', async () => {
  const t = await counted(() => sql.begin(async (tx) => [await tx`SELECT 1`, await tx`SELECT 2`]));
  expect(t.queries).toBe(4);
});

it('concurrent queries: wall time with one in flight, not the sum', async () => {
  const t = await counted(() => Promise.all([sql`SELECT pg_sleep(0.05)`, sql`SELECT pg_sleep(0.05)`, sql`SELECT pg_sleep(0.05)`]));
  expect(t.queries).toBe(3);
  expect(t.busyMs).toBeGreaterThanOrEqual(49);
  expect(t.busyMs).toBeLessThan(140);
});

it('a failed query and a cursor end, and nothing stays in flight', async () => {
  const t = await counted(async () => {
    await expect(sql`SELECT nope FROM nowhere`).rejects.toThrow(/nowhere/);
    let n = 0;
    for await (const batch of sql`SELECT g FROM generate_series(1, 10) g`.cursor(3)) n += batch.length;
    expect(n).toBe(10);
  });
  expect(t.queries).toBe(2);
  const a = timingSnapshot();
  await new Promise((r) => setTimeout(r, 30));
  // Nothing in flight: the busy total does not grow while no query runs.
  expect(timingSnapshot().busyMs - a.busyMs).toBe(0);
});

it('the CommonJS copy is counted too', async () => {
  const cjs = load('postgres') as typeof postgres;
  const other = cjs(db.url, { max: 1, fetch_types: false });
  try {
    const t = await counted(() => other`SELECT 1`);
    expect(t.queries).toBe(1);
  } finally {
    await other.end();
  }
});

it("Prisma's pg driver adapter is counted through pg", async () => {
  const { PrismaPg } = await import('@prisma/adapter-pg');
  const adapter = await new PrismaPg({ connectionString: db.url }).connect();
  try {
    const t = await counted(() => adapter.queryRaw({ sql: 'SELECT 1 AS one', args: [], argTypes: [] }));
    expect(t.queries).toBeGreaterThanOrEqual(1);
  } finally {
    await adapter.dispose();
  }
});
