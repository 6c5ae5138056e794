/** What only PostgreSQL does, against a real embedded server started by the library. What both engines share is in test/engines/contract.test.ts. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, FastTestDbError, type TestDatabase } from '../../src/index.js';
import type { SqlClient } from '../../src/engines/engine.js';
import { engineFor } from '../../src/engines/index.js';
import { encodeMarker, newMarker, stagingName } from '../../src/engines/marker.js';
import { dropOurDatabases } from '../../src/core/drop.js';
import { ensureTemplate } from '../../src/core/template.js';
import { settleRecreate } from '../../src/core/recreate.js';
import { spareName, standbyName } from '../../src/core/names.js';
import { quoteLiteral } from '../../src/engines/quote.js';
import { sql } from './helpers.js';

const roles = await engineFor('postgres').load();

const schema = `
  CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE book (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, author_id int REFERENCES author(id), title text);
  CREATE TABLE tag (id serial PRIMARY KEY, parent_id int REFERENCES tag(id));
  CREATE TABLE country (code text PRIMARY KEY, name text);
  INSERT INTO country VALUES ('NZ', 'New Zealand'), ('KR', 'Korea');
  CREATE SEQUENCE invoice_no;
`;

describe('embedded PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ worker: 'core1', cacheKey: 'core-schema-1', migrate: (url) => sql(url, schema).then(() => undefined) });
  });
  afterAll(() => db?.destroy());

  it('starts, answers a query, and reads its tuned settings back', async () => {
    expect(db.server.owned).toBe(true);
    expect(db.server.provider).toBe('embedded');
    const report = await db.describe();
    expect(report.tuned).toBe(true);
    expect(report.settings).toMatchObject({ fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' });
    expect(report.untuned).toEqual({});
    const [row] = await sql(db.url, 'SELECT current_database() AS name, count(*)::int AS n FROM country');
    expect(row).toEqual({ name: db.name, n: 2 });
  });

  it('recreate() sets the used database aside, takes the spare made ahead, and drops what it set aside', async () => {
    const admin = await roles.connector.connect(db.server);
    const aside = async () =>
      (await admin.query<{ name: string }>(`SELECT datname AS name FROM pg_database WHERE datname ~ '__(old|spare)_' ORDER BY 1`)).map(
        (r) => r.name,
      );
    try {
      await db.recreate();
      await settleRecreate(db.server, db.name);
      // After the background work: nothing set aside, one spare of this process.
      const spare = spareName(db.name, db.template.name);
      expect(await aside()).toEqual([spare]);
      await sql(db.url, `DELETE FROM country`);
      await db.recreate();
      // The spare became the database (its marker is kept), a new spare is being made.
      expect((await roles.markers.readMarker(admin, db.name))?.pid).toBe(process.pid);
      const [{ n }] = await sql(db.url, `SELECT count(*)::int AS n FROM country`);
      expect(n).toBe(2);
      await settleRecreate(db.server, db.name);
      expect(await aside()).toEqual([spare]);
      // A spare left by a process that is gone is dropped by the next one (here: the same sweep
      // any process runs once per prefix), and destroy() leaves this process's own spare as the
      // template's standby (the test below), so that no spare is left.
      const dead = newMarker('database', { pid: 2 ** 22 + 1 });
      await admin.query(`CREATE DATABASE ftdbdead__old_0123456789abcdef0123`);
      await admin.query(`COMMENT ON DATABASE ftdbdead__old_0123456789abcdef0123 IS ${quoteLiteral('postgres', encodeMarker(dead))}`);
      const other = await createTestDatabase({
        worker: 'core3',
        prefix: 'ftdbdead',
        cacheKey: 'core-schema-1',
        migrate: async () => undefined,
      });
      await other.recreate();
      await settleRecreate(other.server, other.name);
      expect((await aside()).filter((n) => n.startsWith('ftdbdead'))).toEqual([spareName(other.name, other.template.name)]);
      await other.destroy();
      expect((await aside()).filter((n) => n.startsWith('ftdbdead'))).toEqual([]);
    } finally {
      await admin.close();
    }
  });
});

describe('the standby clone', () => {
  it("destroy() leaves one clone of the template that the next database opened takes by rename, under any name; a standby made before the template's build is not taken", async () => {
    const migrate = (url: string) => sql(url, schema).then(() => undefined);
    const first = await createTestDatabase({ worker: 'sb1', prefix: 'ftdbsb', cacheKey: 'core-schema-sb', migrate });
    const admin = await roles.connector.connect(first.server);
    const standby = standbyName('ftdbsb', first.template.name);
    const oidOf = async (name: string) =>
      (await admin.query<{ oid: string }>(`SELECT oid::text AS oid FROM pg_database WHERE datname = $1`, [name]))[0]?.oid;
    try {
      expect(await oidOf(standby)).toBeUndefined();
      await sql(first.url, `INSERT INTO author (name) VALUES ('a')`);
      await first.destroy();
      const left = await roles.markers.readMarker(admin, standby);
      expect(left).toMatchObject({ kind: 'database', template: first.template.name, pid: process.pid });
      expect(left?.run).toBeUndefined();
      const was = await oidOf(standby);
      expect(was).toBeDefined();

      const second = await createTestDatabase({ worker: 'sb2', prefix: 'ftdbsb', cacheKey: 'core-schema-sb', migrate });
      expect(await oidOf(second.name)).toBe(was);
      expect(await oidOf(standby)).toBeUndefined();
      expect(await roles.markers.readMarker(admin, second.name)).toMatchObject({
        kind: 'database',
        pid: process.pid,
        template: second.template.name,
      });
      expect(
        await sql(second.url, `SELECT (SELECT count(*) FROM author)::int AS authors, (SELECT count(*) FROM country)::int AS countries`),
      ).toEqual([{ authors: 0, countries: 2 }]);
      await second.destroy();

      // A standby older than its template (the template built again since) is a clone of another build.
      const stale = await roles.markers.readMarker(admin, standby);
      await roles.markers.writeMarker(admin, standby, { ...stale!, created: new Date(0).toISOString() });
      const staleOid = await oidOf(standby);
      const third = await createTestDatabase({ worker: 'sb3', prefix: 'ftdbsb', cacheKey: 'core-schema-sb', migrate });
      expect(await oidOf(third.name)).not.toBe(staleOid);
      expect(await oidOf(standby)).toBe(staleOid);
      await third.destroy();
    } finally {
      await dropOurDatabases(roles, admin, 'ftdbsb__standby_').catch(() => undefined);
      await admin.close();
    }
  });
});

describe('safety', () => {
  it('a template caught between CREATE DATABASE and its marker is waited for, not called foreign', async () => {
    const probe = await createTestDatabase({ worker: 'race-probe' });
    const name = `ftdb_tpl_race${Date.now()}`;
    const builder = await roles.connector.connect(probe.server);
    const admin = await roles.connector.connect(probe.server);
    try {
      // Play the other process: hold the build lock and stop right after CREATE DATABASE.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const lockTaken = new Promise<void>((r) => (locked = r));
      const otherBuild = roles.locks.withLock(builder, name, async () => {
        await builder.query(`CREATE DATABASE ${name}`);
        locked();
        await held;
        await builder.query(
          `COMMENT ON DATABASE ${name} IS ${quoteLiteral('postgres', encodeMarker(newMarker('template', { fingerprint: 'race' })))}`,
        );
        await roles.templates.completeTemplate(builder, probe.server, name, { unlogged: false });
      });
      await lockTaken;
      const ours = ensureTemplate(admin, {
        roles,
        server: probe.server,
        name,
        fingerprint: 'race',
        prefix: 'ftdb',
        unlogged: false,
        keepTemplates: 3,
        env: process.env,
      });
      await new Promise((r) => setTimeout(r, 200));
      release();
      await otherBuild;
      expect(await ours).toBe(false); // it waited for the lock and found the other build complete
      expect(await roles.templates.templateState(admin, name)).toBe('complete');
    } finally {
      await roles.templates.drop(admin, name, { force: true });
      await admin.close();
      await builder.close();
      await probe.destroy();
    }
  });

  it("dropping a run's databases passes over a clone renamed into place meanwhile, and drops it under its final name", async () => {
    const probe = await createTestDatabase({ worker: 'drop-race-probe' });
    const run = `race${Date.now()}`;
    const name = `ftdbrace_${run}`;
    const staging = stagingName(name);
    const admin = await roles.connector.connect(probe.server);
    const creator = await roles.connector.connect(probe.server);
    try {
      // A background clone caught between its marker and its rename, as a teardown lists it...
      await creator.query(`CREATE DATABASE ${staging}`);
      await creator.query(`COMMENT ON DATABASE ${staging} IS ${quoteLiteral('postgres', encodeMarker(newMarker('database', { run })))}`);
      // ...and renamed by its creator right after the list was read, before the drop reaches it.
      let renamed = false;
      const racing: SqlClient = {
        ...admin,
        query: async (text, params) => {
          if (!renamed && !text.startsWith('SELECT')) {
            renamed = true;
            await creator.query(`ALTER DATABASE ${staging} RENAME TO ${name}`);
          }
          return admin.query(text, params);
        },
      };
      const dropped = await dropOurDatabases(roles, racing, 'ftdbrace_', (m) => m.run === run);
      expect(renamed).toBe(true);
      expect(dropped).toEqual([staging, name]);
      expect(await roles.markers.readMarker(admin, name)).toBeUndefined();
      expect(await roles.markers.readMarker(admin, staging)).toBeUndefined();
    } finally {
      for (const db of [staging, name]) await admin.query(`DROP DATABASE IF EXISTS ${db}`);
      await creator.close();
      await admin.close();
      await probe.destroy();
    }
  });

  it('a failing migrate surfaces its own error and leaves no complete template', async () => {
    const cacheKey = `failing-${Date.now()}`;
    const probe = await createTestDatabase({ worker: 'fail-probe' });
    // Other test files share this server and build templates of their own meanwhile: look at ours only.
    const templates = async () => {
      const admin = await roles.connector.connect(probe.server);
      try {
        const ours = (await roles.markers.listOurs(admin, 'ftdb_tpl_')).filter((t) => t.marker.pid === process.pid).map((t) => t.name);
        return await admin.query<{ datname: string; datistemplate: boolean }>(
          `SELECT datname, datistemplate FROM pg_database WHERE datname = ANY($1) ORDER BY datname`,
          [ours],
        );
      } finally {
        await admin.close();
      }
    };
    const before = await templates();
    const attempt = createTestDatabase({
      worker: 'fail',
      cacheKey,
      migrate: async () => {
        throw new Error('boom: syntax error in 002_users.sql');
      },
    });
    const error = await attempt.catch((e) => e);
    expect(error).toBeInstanceOf(FastTestDbError);
    expect(error.code).toBe('MIGRATION_FAILED');
    expect(error.message).toContain('boom: syntax error in 002_users.sql');
    expect((error.cause as Error).message).toContain('boom');
    const after = await templates();
    await probe.destroy();
    expect(after).toEqual(before); // nothing new, complete or not
    expect(after.every((t) => t.datistemplate)).toBe(true);
    // and a later run with a fixed migrate builds it
    let ran = 0;
    const fixed = await createTestDatabase({ worker: 'fail', cacheKey, migrate: async () => void ran++ });
    expect(ran).toBe(1);
    expect(fixed.template.built).toBe(true);
    await fixed.destroy();
  });
});

describe('dropping a database that is still in use', () => {
  it('fails with DATABASE_IN_USE naming the force option, and force terminates the connections', async () => {
    const db = await createTestDatabase({ worker: 'busy' });
    const client = new pg.Client(db.url);
    client.on('error', () => undefined);
    await client.connect();
    try {
      await expect(db.destroy()).rejects.toMatchObject({ code: 'DATABASE_IN_USE', message: expect.stringContaining('force: true') });
      await db.destroy({ force: true });
      await expect(client.query('SELECT 1')).rejects.toThrow();
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});

describe('UNLOGGED conversion', () => {
  it('converts tables in foreign-key-safe order, through self references, cycles and partitions', async () => {
    const db = await createTestDatabase({
      worker: 'unlogged',
      unlogged: true,
      cacheKey: 'unlogged-zoo',
      migrate: (url) =>
        sql(
          url,
          `
          CREATE TABLE parent (id int PRIMARY KEY);
          CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent(id));
          CREATE TABLE grandchild (id int PRIMARY KEY, child_id int REFERENCES child(id));
          CREATE TABLE node (id int PRIMARY KEY, next_id int REFERENCES node(id));
          CREATE TABLE a (id int PRIMARY KEY, b_id int);
          CREATE TABLE b (id int PRIMARY KEY, a_id int REFERENCES a(id));
          ALTER TABLE a ADD CONSTRAINT a_b_fk FOREIGN KEY (b_id) REFERENCES b(id);
          CREATE TABLE lookup (id int PRIMARY KEY);
          CREATE TABLE measurement (id int, at date NOT NULL, lookup_id int REFERENCES lookup(id)) PARTITION BY RANGE (at);
          CREATE TABLE measurement_2026 PARTITION OF measurement FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
        `,
        ).then(() => undefined),
    });
    try {
      const rows = await sql(
        db.url,
        `SELECT relname, relpersistence, relkind FROM pg_class WHERE relkind IN ('r','p') AND relnamespace = 'public'::regnamespace ORDER BY relname`,
      );
      const persistence = Object.fromEntries(rows.map((r) => [r.relname, r.relpersistence]));
      for (const t of ['parent', 'child', 'grandchild', 'node', 'a', 'b', 'measurement_2026']) expect(persistence[t], t).toBe('u');
      // A partitioned parent stays permanent, and so does what it references.
      expect(persistence.measurement).toBe('p');
      expect(persistence.lookup).toBe('p');
      // The cycle's keys are back and enforced.
      const fks = await sql(db.url, `SELECT conname FROM pg_constraint WHERE contype = 'f' ORDER BY conname`);
      expect(fks.map((f) => f.conname)).toContain('a_b_fk');
      await expect(sql(db.url, `INSERT INTO a VALUES (1, 99)`)).rejects.toThrow(/foreign key/);
    } finally {
      await db.destroy();
    }
  });

  it('is off by default on a tuned server', async () => {
    const db = await createTestDatabase({
      worker: 'logged',
      cacheKey: 'logged',
      migrate: (url) => sql(url, `CREATE TABLE t (id int)`).then(() => undefined),
    });
    try {
      const [{ p }] = await sql(db.url, `SELECT relpersistence AS p FROM pg_class WHERE relname = 't'`);
      expect(p).toBe('p');
    } finally {
      await db.destroy();
    }
  });
});
