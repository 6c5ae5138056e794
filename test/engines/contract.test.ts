/**
 * One contract, both engines: every case below runs on PostgreSQL and on MariaDB (or MySQL), each
 * started by the library itself. A case that holds for one engine only lives in that engine's own
 * file (test/core/postgres.test.ts, test/engines/mysql/engine.test.ts).
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../src/index.js';
import type { Engine, EngineName, ServerRoles, SqlClient } from '../../src/engines/engine.js';
import { engineFor } from '../../src/engines/index.js';
import { quoteIdent, quoteLiteral } from '../../src/engines/quote.js';
import { privateDataRoot, removeDataRoot } from '../core/helpers.js';

type Row = Record<string, unknown>;

interface EngineCase {
  engine: EngineName;
  /** Runs statements in order on one connection; returns the rows of the last. */
  run(url: string, statements: string[]): Promise<Row[]>;
  schema: string[];
  /** A private data root (the server is stopped afterwards), or the suite's shared one. */
  privateRoot: boolean;
  /** Creates an empty database that is not ours, and returns the statement that removes it. */
  foreign(name: string): { create: string[]; drop: string };
  /** Makes a foreign database carry something that looks like our marker but is not one. */
  lookalike(name: string): string;
  /** The server's own database, which a hostile name must not reach. */
  systemDatabase: string;
  /** Statements that advance the engine's standalone counters; `next` reads the next value (1 after a reset). */
  counter?: { bump: string[]; next: string };
}

const pgRun = async (url: string, statements: string[]) => {
  const client = new pg.Client(url);
  await client.connect();
  try {
    let rows: Row[] = [];
    for (const s of statements) rows = (await client.query(s)).rows;
    return rows;
  } finally {
    await client.end();
  }
};

const mysqlRun = async (url: string, statements: string[]) => {
  const c = await mysql.createConnection({ uri: url });
  try {
    let rows: Row[] = [];
    for (const s of statements) rows = (await c.query(s))[0] as Row[];
    return rows;
  } finally {
    await c.end();
  }
};

const engines: EngineCase[] = [
  {
    engine: 'postgres',
    run: pgRun,
    systemDatabase: 'postgres',
    privateRoot: false,
    schema: [
      'CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL)',
      'CREATE TABLE book (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, author_id int REFERENCES author(id), title text)',
      'CREATE TABLE tag (id serial PRIMARY KEY, parent_id int REFERENCES tag(id))',
      'CREATE TABLE a (id int PRIMARY KEY, b_id int)',
      'CREATE TABLE b (id int PRIMARY KEY, a_id int REFERENCES a(id))',
      'ALTER TABLE a ADD CONSTRAINT a_b FOREIGN KEY (b_id) REFERENCES b(id)',
      'CREATE TABLE country (id serial PRIMARY KEY, code text UNIQUE, name text)',
      "INSERT INTO country (code, name) VALUES ('NZ', 'New Zealand'), ('KR', 'Korea')",
      'CREATE SEQUENCE invoice_no',
    ],
    foreign: (name) => ({
      create: [`CREATE DATABASE ${quoteIdent('postgres', name)}`],
      drop: `DROP DATABASE IF EXISTS ${quoteIdent('postgres', name)}`,
    }),
    lookalike: (name) =>
      `COMMENT ON DATABASE ${quoteIdent('postgres', name)} IS ${quoteLiteral('postgres', 'fast-test-db {"tool":"other"}')}`,
    counter: { bump: ["SELECT nextval('invoice_no')", "SELECT nextval('invoice_no')"], next: "SELECT nextval('invoice_no') AS n" },
  },
  {
    engine: 'mysql',
    run: mysqlRun,
    systemDatabase: 'mysql',
    privateRoot: true,
    schema: [
      'CREATE TABLE author (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL)',
      'CREATE TABLE book (id INT AUTO_INCREMENT PRIMARY KEY, author_id INT, title VARCHAR(100), FOREIGN KEY (author_id) REFERENCES author(id))',
      'CREATE TABLE tag (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT, FOREIGN KEY (parent_id) REFERENCES tag(id))',
      'CREATE TABLE a (id INT PRIMARY KEY, b_id INT)',
      'CREATE TABLE b (id INT PRIMARY KEY, a_id INT, FOREIGN KEY (a_id) REFERENCES a(id))',
      'ALTER TABLE a ADD CONSTRAINT a_b FOREIGN KEY (b_id) REFERENCES b(id)',
      'CREATE TABLE country (id INT AUTO_INCREMENT PRIMARY KEY, code VARCHAR(2) UNIQUE, name VARCHAR(100))',
      "INSERT INTO country (code, name) VALUES ('NZ', 'New Zealand'), ('KR', 'Korea')",
    ],
    foreign: (name) => ({
      create: [
        `CREATE DATABASE ${quoteIdent('mysql', name)}`,
        `CREATE TABLE ${quoteIdent('mysql', name)}.precious (v INT)`,
        `INSERT INTO ${quoteIdent('mysql', name)}.precious VALUES (42)`,
      ],
      drop: `DROP DATABASE IF EXISTS ${quoteIdent('mysql', name)}`,
    }),
    // A routine of our marker's name whose comment is not our marker.
    lookalike: (name) =>
      `CREATE PROCEDURE ${quoteIdent('mysql', name)}._fast_test_db_marker() COMMENT 'fast-test-db {"tool":"other"}' BEGIN END`,
  },
];

const PREFIX = 'ftcon';
const count = async (c: EngineCase, url: string, table: string) => Number((await c.run(url, [`SELECT count(*) AS n FROM ${table}`]))[0]!.n);

describe.each(engines)('engine contract on $engine', (c) => {
  const dataRoot = c.privateRoot ? privateDataRoot(`contract-${c.engine}`) : undefined;
  let migrations = 0;
  const base = {
    engine: c.engine,
    ...(dataRoot ? { dataRoot } : {}),
    prefix: PREFIX,
    cacheKey: `contract-${c.engine}-1`,
    migrate: async (url: string) => {
      migrations++;
      await c.run(url, c.schema);
    },
  };
  let db: TestDatabase;
  let engine: Engine;
  let roles: ServerRoles;
  /** What the server answers with through its admin database (no test database involved). */
  const admin = async <T>(fn: (client: SqlClient) => Promise<T>) => {
    const client = await roles.connector.connect(db.server);
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  };
  const adminUrl = (name: string) => engine.urls.url(db.server, name);

  beforeAll(async () => {
    engine = engineFor(c.engine);
    roles = await engine.load();
    db = await createTestDatabase({ ...base, worker: 'main' });
  });
  afterAll(async () => {
    await db?.destroy({ force: true });
    if (dataRoot) await removeDataRoot(dataRoot);
  });

  it("creates a database holding the template's tables and seed rows, on a server it started", async () => {
    expect(db.server).toMatchObject({ engine: c.engine, owned: true, provider: 'embedded' });
    expect(db.template.built).toBe(true);
    expect(await count(c, db.url, 'country')).toBe(2);
    for (const t of ['author', 'book', 'tag', 'a', 'b']) expect(await count(c, db.url, t), t).toBe(0);
    expect(migrations).toBe(1);
  });

  it('clones the same template again without migrating', async () => {
    const other = await createTestDatabase({ ...base, worker: 'clone' });
    try {
      expect(other.template).toMatchObject({ name: db.template.name, built: false });
      expect(other.name).not.toBe(db.name);
      expect(await count(c, other.url, 'country')).toBe(2);
      expect(migrations).toBe(1);
    } finally {
      await other.destroy();
    }
  });

  it('reset() empties dirty tables, through foreign keys and a foreign-key cycle, and restarts counters', async () => {
    await c.run(db.url, [
      "INSERT INTO author (name) VALUES ('a'), ('b')",
      "INSERT INTO book (author_id, title) VALUES (1, 'x')",
      'INSERT INTO tag (parent_id) VALUES (NULL)',
      'INSERT INTO tag (parent_id) VALUES (1)',
      'INSERT INTO a (id, b_id) VALUES (1, NULL)',
      'INSERT INTO b (id, a_id) VALUES (1, 1)',
      'UPDATE a SET b_id = 1 WHERE id = 1',
      ...(c.counter?.bump ?? []),
    ]);
    const report = await db.reset();
    expect([...report.emptied].sort()).toEqual(['a', 'author', 'b', 'book', 'tag']);
    for (const t of ['author', 'book', 'tag', 'a', 'b']) expect(await count(c, db.url, t), t).toBe(0);
    expect(await count(c, db.url, 'country')).toBe(2);
    const [author] = await c.run(db.url, ["INSERT INTO author (name) VALUES ('again')", 'SELECT max(id) AS id FROM author']);
    expect(Number(author!.id)).toBe(1);
    const [book] = await c.run(db.url, ["INSERT INTO book (author_id, title) VALUES (1, 'y')", 'SELECT max(id) AS id FROM book']);
    expect(Number(book!.id)).toBe(1);
    if (c.counter) expect(Number((await c.run(db.url, [c.counter.next]))[0]!.n)).toBe(1);
  });

  it('reset() restarts a counter that a rolled-back insert advanced', async () => {
    await db.reset();
    await c.run(db.url, ['BEGIN', "INSERT INTO author (name) VALUES ('gone')", 'ROLLBACK']);
    expect(await count(c, db.url, 'author')).toBe(0);
    await db.reset();
    const [row] = await c.run(db.url, ["INSERT INTO author (name) VALUES ('first')", 'SELECT max(id) AS id FROM author']);
    expect(Number(row!.id)).toBe(1);
  });

  it("reset() puts changed seed rows back and keeps the seeded table's counter", async () => {
    await db.reset();
    await c.run(db.url, ["UPDATE country SET name = 'changed' WHERE code = 'KR'", "DELETE FROM country WHERE code = 'NZ'"]);
    const report = await db.reset();
    expect(report.restored).toEqual(['country']);
    const rows = await c.run(db.url, ['SELECT code, name FROM country ORDER BY id']);
    expect(rows.map((r) => [r.code, r.name])).toEqual([
      ['NZ', 'New Zealand'],
      ['KR', 'Korea'],
    ]);
    const [next] = await c.run(db.url, [
      "INSERT INTO country (code, name) VALUES ('JP', 'Japan')",
      "SELECT id FROM country WHERE code = 'JP'",
    ]);
    expect(Number(next!.id)).toBe(3); // the template's counter, not 1
  });

  it('reset() on a clean database empties nothing', async () => {
    await db.reset();
    const report = await db.reset();
    expect(report).toMatchObject({ emptied: [], restored: [] });
  });

  it('recreate() gives a fresh clone of the template', async () => {
    await c.run(db.url, ["DELETE FROM country WHERE code = 'KR'", "INSERT INTO author (name) VALUES ('left over')"]);
    await db.recreate();
    expect(await count(c, db.url, 'country')).toBe(2);
    expect(await count(c, db.url, 'author')).toBe(0);
  });

  it('marks what it creates, and lists only that', async () => {
    await admin(async (client) => {
      expect(await roles.markers.readMarker(client, db.name)).toMatchObject({ tool: 'fast-test-db', kind: 'database', pid: process.pid });
      expect(await roles.markers.readMarker(client, db.template.name)).toMatchObject({
        tool: 'fast-test-db',
        kind: 'template',
        seeded: ['country'],
      });
      expect(await roles.templates.templateState(client, db.template.name)).toBe('complete');
      expect(await roles.markers.readMarker(client, `${PREFIX}_nosuchdb`)).toBeUndefined();
      const ours = (await roles.markers.listOurs(client, PREFIX)).map((o) => o.name);
      expect(ours).toEqual(expect.arrayContaining([db.name, db.template.name]));
    });
  });

  it("quotes a hostile worker id into a plain name that fits every engine's limit", async () => {
    const hostile = `x"\`; DROP DATABASE ${c.systemDatabase}; --'` + 'y'.repeat(100);
    const one = await createTestDatabase({ ...base, worker: hostile });
    try {
      expect(one.name).toMatch(/^[a-z0-9_]+$/);
      expect(Buffer.byteLength(one.name)).toBeLessThanOrEqual(engine.quoting.maxNameBytes);
      const again = await createTestDatabase({ ...base, worker: hostile, suffix: 'b' });
      expect(again.name).not.toBe(one.name);
      await again.destroy();
      await admin(async (client) => {
        expect(await roles.markers.readMarker(client, one.name)).toMatchObject({ kind: 'database' });
        expect(await roles.markers.readMarker(client, c.systemDatabase)).toBeNull(); // still there, and not ours
      });
    } finally {
      await one.destroy();
    }
  });

  it('never clones over, resets or drops a foreign database, even one with a look-alike marker', async () => {
    const name = `${PREFIX}_wforeign`;
    const { create, drop } = c.foreign(name);
    await admin(async (client) => {
      await client.query(drop);
      for (const s of create) await client.query(s);
    });
    try {
      if (c.engine === 'postgres') await c.run(adminUrl(name), ['CREATE TABLE precious (v int)', 'INSERT INTO precious VALUES (42)']);
      await admin((client) => client.query(c.lookalike(name)));
      await expect(createTestDatabase({ ...base, worker: 'foreign' })).rejects.toMatchObject({ code: 'NOT_OURS' });
      await admin(async (client) => {
        expect(await roles.markers.readMarker(client, name)).toBeNull();
        expect((await roles.markers.listOurs(client, PREFIX)).map((o) => o.name)).not.toContain(name);
      });
      const inside = await roles.connector.connect(db.server, name);
      try {
        await expect(roles.resetter.reset(inside, name, [])).rejects.toMatchObject({ code: 'NOT_OURS' });
      } finally {
        await inside.close();
      }
      expect((await c.run(adminUrl(name), ['SELECT v FROM precious']))[0]!.v).toBe(42);
    } finally {
      await admin((client) => client.query(drop));
    }
  });

  it("refuses a foreign database that holds the template's name, and leaves it untouched", async () => {
    const cacheKey = `contract-${c.engine}-squatted-${Date.now()}`;
    const first = await createTestDatabase({ ...base, cacheKey, worker: 'squat' });
    const template = first.template.name;
    await first.destroy();
    const { create, drop } = c.foreign(template);
    try {
      // Replace our template with somebody else's database of the same name.
      await admin(async (client) => {
        await roles.templates.drop(client, template, { force: true });
        for (const s of create) await client.query(s);
      });
      if (c.engine === 'postgres') await c.run(adminUrl(template), ['CREATE TABLE precious (v int)', 'INSERT INTO precious VALUES (42)']);
      await expect(createTestDatabase({ ...base, cacheKey, worker: 'squat' })).rejects.toMatchObject({ code: 'NOT_OURS' });
      expect((await c.run(adminUrl(template), ['SELECT v FROM precious']))[0]!.v).toBe(42);
    } finally {
      await admin((client) => client.query(drop));
    }
  });
});
