/**
 * PostgreSQL reset() against a real server the library starts: what a BEGIN/ROLLBACK per test
 * cannot give back and reset() must (rows committed by several connections, sequences advanced by
 * a rolled-back insert or by hand, a partitioned table), and the schema changing under the compiled
 * reset function: a table added, one dropped, a sequence renamed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../src/index.js';
import { sql } from '../../core/helpers.js';

const schema = `
  CREATE TABLE account (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE entry (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account_id int NOT NULL REFERENCES account(id), amount int);
  CREATE TABLE event (id bigserial, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
  CREATE TABLE event_2026 PARTITION OF event FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
  CREATE SEQUENCE ticket_no START 100;
`;

async function client(db: TestDatabase): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  return c;
}

const one = async (c: pg.Client, text: string) => (await c.query(text)).rows[0];

describe('PostgreSQL reset()', () => {
  let db: TestDatabase;
  let a: pg.Client;
  let b: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase({
      worker: 'pgreset1',
      cacheKey: 'pg-reset-schema-1',
      migrate: (url) => sql(url, schema).then(() => undefined),
    });
    [a, b] = await Promise.all([client(db), client(db)]);
  });
  afterAll(async () => {
    await Promise.all([a?.end(), b?.end()]);
    await db?.destroy();
  });

  it('empties rows committed by two connections and restarts serial, identity, partitioned and standalone sequences', async () => {
    await db.reset();
    await a.query(`INSERT INTO account (name) VALUES ('a'), ('b')`);
    await b.query(`INSERT INTO entry (account_id, amount) SELECT id, 1 FROM account`);
    await b.query(`INSERT INTO event (at) VALUES ('2026-05-01')`);
    await a.query(`SELECT nextval('ticket_no')`);
    const report = await db.reset();
    expect(report.emptied.sort()).toEqual(['account', 'entry', 'event']);
    expect(report.restarted.sort()).toEqual(['account_id_seq', 'entry_id_seq', 'event_id_seq', 'ticket_no']);
    expect(
      await one(
        b,
        'SELECT (SELECT count(*) FROM account)::int + (SELECT count(*) FROM entry)::int + (SELECT count(*) FROM event)::int AS n',
      ),
    ).toEqual({ n: 0 });
    expect(await one(a, `INSERT INTO account (name) VALUES ('c') RETURNING id`)).toEqual({ id: 1 });
    expect(await one(b, `INSERT INTO entry (account_id) VALUES (1) RETURNING id`)).toEqual({ id: '1' });
    expect(await one(a, `SELECT nextval('ticket_no')::int AS n`)).toEqual({ n: 100 });
  });

  it('restarts a sequence that only a rolled-back insert advanced, and reports nothing on a clean database', async () => {
    await db.reset();
    await a.query('BEGIN');
    await a.query(`INSERT INTO account (name) VALUES ('gone')`);
    await a.query('ROLLBACK');
    expect(await db.reset()).toMatchObject({ emptied: [], restarted: ['account_id_seq'] });
    expect(await db.reset()).toMatchObject({ emptied: [], restarted: [], restored: [] });
  });

  it('follows the schema: a table added after the first reset, a table dropped, a sequence renamed', async () => {
    await db.reset();
    await a.query(`CREATE TABLE note (id serial PRIMARY KEY, body text); INSERT INTO note (body) VALUES ('x')`);
    expect((await db.reset()).emptied).toEqual(['note']);
    // Dropped while a newer relation stays: the catalog signature does not change, the function fails on the name.
    await a.query('CREATE TABLE later (id int)');
    await db.reset();
    await a.query('DROP TABLE note');
    await b.query(`INSERT INTO account (name) VALUES ('d')`);
    expect((await db.reset()).emptied).toEqual(['account']);
    await a.query(`ALTER SEQUENCE ticket_no RENAME TO ticket_number; SELECT nextval('ticket_number')`);
    expect((await db.reset()).restarted).toEqual(['ticket_number']);
    expect(await one(b, `SELECT nextval('ticket_number')::int AS n`)).toEqual({ n: 100 });
  });
});
