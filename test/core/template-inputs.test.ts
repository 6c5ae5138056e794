/**
 * What a template is built from, and what reset() gives back, on the suite's embedded PostgreSQL:
 * migrate given alone is scoped to one run; a failing migrate that leaks its client is reported,
 * not turned into a crash; seeded tables come back to exactly the template's rows.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { engineFor } from '../../src/engines/index.js';
import { createTestDatabase, FastTestDbError, prepareTemplate } from '../../src/index.js';
import { sql } from './helpers.js';

const roles = await engineFor('postgres').load();

describe('a template built from migrate alone', () => {
  const tables = async (url: string) =>
    (await sql(url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).map((r) => r.tablename);

  it('is rebuilt when the function is edited, and by the next run even when only code it calls changed', async () => {
    const run = `edit${Date.now()}`;
    // Two edits of one inline migrate: different source text, different template.
    const first = await createTestDatabase({
      runId: run,
      worker: 'edit',
      migrate: (url) => sql(url, 'CREATE TABLE v1 (id int)').then(() => undefined),
    });
    const edited = await createTestDatabase({
      runId: run,
      worker: 'edit',
      migrate: (url) => sql(url, 'CREATE TABLE v2 (id int)').then(() => undefined),
    });
    expect(edited.template.built).toBe(true);
    expect(edited.template.name).not.toBe(first.template.name);
    expect(await tables(edited.url)).toEqual(['v2']);

    // Same source text, different behaviour (what a migrator reads from disk): one template per run.
    let schema = 'CREATE TABLE w1 (id int)';
    const migrate = async (url: string) => void (await sql(url, schema));
    const a = await createTestDatabase({ runId: run, worker: 'edit', migrate });
    expect(a.template.built).toBe(true);
    schema = 'CREATE TABLE w2 (id int)';
    const sameRun = await createTestDatabase({ runId: run, worker: 'edit', migrate });
    expect(sameRun.template.built).toBe(false); // one build per run, as before
    const nextRun = await createTestDatabase({ runId: `${run}b`, worker: 'edit', migrate });
    expect(nextRun.template.built).toBe(true);
    expect(await tables(nextRun.url)).toEqual(['w2']);
    await nextRun.destroy();
  });

  it('is shared across runs once cacheKey vouches for its inputs', async () => {
    const cacheKey = `vouched${Date.now()}`;
    let ran = 0;
    const migrate = async (url: string) => void (ran++, await sql(url, 'CREATE TABLE t (id int)'));
    await prepareTemplate({ runId: 'one', cacheKey, migrate });
    const later = await prepareTemplate({ runId: 'two', cacheKey, migrate });
    expect(ran).toBe(1);
    expect(later.template.built).toBe(false);
  });
});

describe('a migrate that throws without closing its client', () => {
  it('fails with MIGRATION_FAILED and its own error, without ending that client under it', async () => {
    const cacheKey = `leaky${Date.now()}`;
    let leaked: pg.Client | undefined;
    const attempt = createTestDatabase({
      worker: 'leaky',
      cacheKey,
      async migrate(url) {
        leaked = new pg.Client(url); // no 'error' listener and no end(), as a first draft often has
        await leaked.connect();
        await leaked.query('CREATE TABLE t (x nosuchtype)');
      },
    });
    const error = await attempt.catch((e) => e);
    expect(error).toBeInstanceOf(FastTestDbError);
    expect(error.code).toBe('MIGRATION_FAILED');
    expect(error.message).toContain('type "nosuchtype" does not exist');
    expect(error.message).toContain('still open');
    // The connection was left alone: a terminated one would have emitted an unhandled 'error'.
    expect((await leaked!.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await leaked!.end();
    // Once it is closed, the next build drops the incomplete template and goes on.
    const fixed = await createTestDatabase({
      worker: 'leaky',
      cacheKey,
      migrate: (url) => sql(url, 'CREATE TABLE t (x int)').then(() => undefined),
    });
    expect(fixed.template.built).toBe(true);
    await fixed.destroy();
  });
});

describe('reset() and seeded tables', () => {
  const schema = `
    CREATE TABLE users (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text);
    CREATE TABLE setting (key text PRIMARY KEY, value text, owner int REFERENCES users (id), shout text GENERATED ALWAYS AS (upper(value)) STORED);
    INSERT INTO setting (key, value) VALUES ('theme', 'dark'), ('lang', 'en');
    CREATE TABLE country (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, code text UNIQUE);
    INSERT INTO country (code) VALUES ('NZ'), ('KR');
    CREATE TABLE city (id serial PRIMARY KEY, country_id int REFERENCES country (id), name text);
    INSERT INTO city (country_id, name) VALUES (1, 'Auckland');
    CREATE TABLE visit (id serial PRIMARY KEY, city_id int REFERENCES city (id));`;
  const seeded = `SELECT (SELECT json_agg(s ORDER BY key) FROM setting s) AS setting, (SELECT json_agg(c ORDER BY id) FROM country c) AS country,
    (SELECT json_agg(c ORDER BY id) FROM city c) AS city`;

  it("hold exactly the template's rows after every reset, and the report says which were restored", async () => {
    const db = await createTestDatabase({
      worker: 'seeded',
      cacheKey: 'seeded-v1',
      migrate: (url) => sql(url, schema).then(() => undefined),
    });
    try {
      const [template] = await sql(db.url, seeded);
      expect(template.country).toHaveLength(2);

      // A table of more than 1,000 rows is truncated with CASCADE, which reaches the seeded `setting`.
      await sql(db.url, `INSERT INTO users (name) SELECT 'u' || g FROM generate_series(1, 1500) g`);
      let report = await db.reset();
      expect(report.emptied).toContain('users');
      expect(report.restored).toEqual(['setting']);
      expect((await sql(db.url, seeded))[0]).toEqual(template);

      // A test that changes seeded tables: edits, deletes, inserts, one pointing at a test's own row.
      await sql(
        db.url,
        `UPDATE country SET code = 'XX' WHERE id = 1; DELETE FROM city; INSERT INTO users (name) VALUES ('me');
        INSERT INTO setting (key, value, owner) VALUES ('mine', 'x', 1); INSERT INTO visit (city_id) VALUES (NULL)`,
      );
      report = await db.reset();
      expect(report.restored.sort()).toEqual(['city', 'country', 'setting']);
      expect(report.emptied).toEqual(expect.arrayContaining(['users', 'visit', 'city', 'country', 'setting']));
      expect((await sql(db.url, seeded))[0]).toEqual(template);
      // Counters and identities are the template's too.
      expect(await sql(db.url, `INSERT INTO users (name) VALUES ('again') RETURNING id`)).toEqual([{ id: 1 }]);
      expect(await sql(db.url, `INSERT INTO country (code) VALUES ('JP') RETURNING id`)).toEqual([{ id: 3 }]);

      // Restoring `country` empties `city` (it points at it) through the CASCADE: both come back.
      report = await db.reset();
      expect(report.restored.sort()).toEqual(['city', 'country']);
      // Rows put back by a reset do not count as changed by the next one, nor does a rolled-back change.
      report = await db.reset();
      expect(report).toMatchObject({ emptied: [], restored: [] });
      await sql(db.url, `BEGIN; DELETE FROM city; ROLLBACK`);
      expect((await db.reset()).restored).toEqual([]);
      expect((await sql(db.url, seeded))[0]).toEqual(template);
    } finally {
      await db.destroy();
    }
  });

  it('keeps the copies out of sight of the schema a user reads', async () => {
    const db = await createTestDatabase({
      worker: 'seeded2',
      cacheKey: 'seeded-v1',
      migrate: (url) => sql(url, schema).then(() => undefined),
    });
    try {
      const admin = await roles.connector.connect(db.server);
      const marker = await roles.markers.readMarker(admin, db.name);
      await admin.close();
      expect(marker?.seedRows).toEqual({ setting: 2, country: 2, city: 1 });
      expect(await sql(db.url, `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)).toEqual([{ n: 5 }]);
    } finally {
      await db.destroy();
    }
  });
});

describe('reset() and what a schema builds on its tables', () => {
  const schema = `
    CREATE SCHEMA other;
    CREATE SEQUENCE other.audit_seq;
    CREATE TABLE audit (id bigint DEFAULT nextval('other.audit_seq'), what text);
    CREATE TABLE country (code text PRIMARY KEY);
    INSERT INTO country VALUES ('NZ'), ('KR');
    CREATE FUNCTION log_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO audit (what) VALUES (TG_TABLE_NAME || ':' || NEW.code); RETURN NEW; END $$;
    CREATE TRIGGER country_audit AFTER INSERT ON country FOR EACH ROW EXECUTE FUNCTION log_insert();
    CREATE MATERIALIZED VIEW country_count AS SELECT count(*)::int AS n FROM country;
    CREATE MATERIALIZED VIEW country_codes AS SELECT code FROM country WITH NO DATA;
    SELECT lo_from_bytea(0, 'template blob');`;
  const migrate = (url: string) => sql(url, schema).then(() => undefined);
  const state = (url: string) =>
    sql(
      url,
      `SELECT (SELECT json_agg(code ORDER BY code) FROM country) AS country, (SELECT count(*)::int FROM audit) AS audit,
        (SELECT n FROM country_count) AS counted, (SELECT relispopulated FROM pg_class WHERE relname = 'country_codes') AS codes,
        (SELECT count(*)::int FROM pg_largeobject_metadata) AS blobs`,
    ).then((r) => r[0]);

  it("triggers do not fire on the restore; views and large objects come back to the template's", async () => {
    const warnings: Array<{ code?: string; message: string }> = [];
    const listen = (w: Error & { code?: string }) => warnings.push(w);
    process.on('warning', listen);
    const db = await createTestDatabase({ worker: 'built-on', cacheKey: 'built-on-v1', migrate });
    try {
      const template = await state(db.url);
      expect(template).toEqual({ country: ['KR', 'NZ'], audit: 0, counted: 2, codes: false, blobs: 1 });

      // The trigger fires for the test's own insert; the refill of `country` must not fire it again.
      await sql(
        db.url,
        `INSERT INTO country VALUES ('JP'); REFRESH MATERIALIZED VIEW country_count; REFRESH MATERIALIZED VIEW country_codes;
         SELECT lo_from_bytea(0, 'test blob')`,
      );
      expect(await state(db.url)).toEqual({ country: ['JP', 'KR', 'NZ'], audit: 1, counted: 3, codes: true, blobs: 2 });
      const report = await db.reset();
      expect(report.restored).toEqual(expect.arrayContaining(['country', 'country_count']));
      expect(report.emptied).toEqual(expect.arrayContaining(['audit', 'country', 'country_codes', 'pg_largeobject']));
      expect(await state(db.url)).toEqual(template);
      // The sequence the trigger moved is back at its start, and the template's large object is its own.
      expect(await sql(db.url, `SELECT nextval('other.audit_seq')::int AS n`)).toEqual([{ n: 1 }]);
      expect(await sql(db.url, `SELECT convert_from(lo_get(oid), 'UTF8') AS t FROM pg_largeobject_metadata`)).toEqual([
        { t: 'template blob' },
      ]);

      // A view refreshed without any table changing is left alone; nothing else to do.
      await sql(db.url, `DELETE FROM audit`);
      await db.reset();
      expect(await db.reset()).toMatchObject({ emptied: [], restored: [] });
      expect(await state(db.url)).toEqual(template);

      // Silenced on reset()'s own session, at every reset of it, and nowhere else: the test's
      // insert fires the trigger, the next refill does not.
      await sql(db.url, `INSERT INTO country VALUES ('AU')`);
      expect(await state(db.url)).toMatchObject({ country: ['AU', 'KR', 'NZ'], audit: 1 });
      await db.reset();
      expect(await state(db.url)).toEqual(template);

      // What reset cannot undo (a change to the template's own large object) is said once.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.code === 'FAST_TEST_DB_RESET_LARGE_OBJECTS')).toHaveLength(1);
      expect(warnings.find((w) => w.code === 'FAST_TEST_DB_RESET_LARGE_OBJECTS')?.message).toMatch(
        /cannot undo a change to the template's own 1; recreate\(\) gives the template's exact state/,
      );
      // A superuser's reset silences the triggers instead of warning about them.
      expect(warnings.filter((w) => w.code === 'FAST_TEST_DB_RESET_TRIGGERS')).toEqual([]);
    } finally {
      process.off('warning', listen);
      await db.destroy();
    }
  });

  it('a user who may not silence triggers is told once that reset() may fire them', async () => {
    const owner = await createTestDatabase({ worker: 'built-on-admin' });
    const role = `ftdb_plain_${process.pid}`;
    const admin = await roles.connector.connect(owner.server);
    await admin.query(`CREATE ROLE ${role} LOGIN CREATEDB PASSWORD 'plain-pw'`);
    await admin.close();
    const warnings: Array<{ code?: string; message: string }> = [];
    const listen = (w: Error & { code?: string }) => warnings.push(w);
    process.on('warning', listen);
    const url = `postgres://${role}:plain-pw@${owner.server.host}:${owner.server.port}/postgres`;
    const db = await createTestDatabase({ url, worker: 'built-on-plain', cacheKey: 'built-on-plain-v1', migrate });
    try {
      await sql(db.url, `INSERT INTO country VALUES ('JP')`);
      await db.reset();
      await db.reset();
      await new Promise((r) => setImmediate(r));
      const said = warnings.filter((w) => w.code === 'FAST_TEST_DB_RESET_TRIGGERS');
      expect(said).toHaveLength(1);
      expect(said[0]!.message).toMatch(
        /reset\(\) may fire the trigger country_audit on country while it empties and refills tables: this user may not set session_replication_role .*recreate\(\) gives the template's exact state/,
      );
    } finally {
      process.off('warning', listen);
      await db.destroy();
      await owner.destroy();
    }
  });
});
