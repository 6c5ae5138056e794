/**
 * grantContents on a real embedded PostgreSQL: a login the app's code spells out owns what a
 * migration made in the template (schemas, tables, views, an enum, a domain, a standalone
 * sequence, a function), so that in a clone it can empty tables with RESTART IDENTITY, alter
 * them and add enum values; it is still no superuser, and the template takes no connections again.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../src/index.js';
import { engineFor } from '../../../src/engines/index.js';
import { withClient } from '../../../src/engines/connect.js';
import { privateDataRoot, removeDataRoot } from '../../core/helpers.js';

const SCHEMA = `
CREATE SCHEMA app;
CREATE TYPE mood AS ENUM ('ok', 'sad');
CREATE DOMAIN positive AS integer CHECK (VALUE > 0);
CREATE TABLE item (id SERIAL PRIMARY KEY, qty positive NOT NULL, m mood NOT NULL DEFAULT 'ok');
CREATE TABLE app.note (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT);
CREATE SEQUENCE ticket;
CREATE VIEW item_count AS SELECT count(*) AS n FROM item;
CREATE FUNCTION twice(i integer) RETURNS integer LANGUAGE sql AS 'SELECT i * 2';
INSERT INTO item (qty) VALUES (1), (2);
`;

describe('PostgreSQL: the login owns what the template holds', () => {
  let dataRoot: string;
  let first: TestDatabase;
  const migrate = async (url: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(SCHEMA);
    await c.end();
  };

  beforeAll(async () => {
    dataRoot = privateDataRoot('pg-logins');
    first = await createTestDatabase({ worker: 'lg1', dataRoot, migrate, cacheKey: 'pg-logins' });
  }, 180_000);

  afterAll(async () => {
    await first?.destroy();
    await removeDataRoot(dataRoot);
  });

  it('in a clone made after it, the login empties, alters and extends; no superuser powers', async () => {
    const { server } = first;
    const roles = await engineFor('postgres').load({ cloneStrategy: 'file_copy' });
    await withClient(roles.connector, server, async (admin) => {
      await roles.logins.createLogin(admin, 'shop', 'shop-pass');
      await roles.logins.grantContents(admin, server, first.template.name, 'shop');
      const [t] = await admin.query<{ allow: boolean }>('SELECT datallowconn AS allow FROM pg_database WHERE datname = $1', [
        first.template.name,
      ]);
      expect(t!.allow).toBe(false);
    });
    const db = await createTestDatabase({ worker: 'lg2', dataRoot, migrate, cacheKey: 'pg-logins' });
    expect(db.template.built).toBe(false);
    const app = new pg.Client({ host: server.host, port: server.port, user: 'shop', password: 'shop-pass', database: db.name });
    await app.connect();
    try {
      expect((await app.query('SELECT n::int FROM item_count')).rows[0].n).toBe(2);
      await app.query('TRUNCATE item, app.note RESTART IDENTITY');
      await app.query("ALTER TYPE mood ADD VALUE 'glad'");
      await app.query('ALTER TABLE item ADD COLUMN label text');
      await app.query("INSERT INTO item (qty, m, label) VALUES (3, 'glad', 'x')");
      expect((await app.query('SELECT id FROM item')).rows).toEqual([{ id: 1 }]);
      await app.query("INSERT INTO app.note (body) VALUES ('n')");
      expect((await app.query("SELECT nextval('ticket')::int AS v, twice(4) AS t")).rows[0]).toEqual({ v: 1, t: 8 });
      await app.query('CREATE TABLE own (id int)');
      const [me] = (await app.query('SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user')).rows;
      expect(me).toEqual({ rolsuper: false, rolcreaterole: false });
      await expect(app.query("COPY (SELECT 1) TO PROGRAM 'true'")).rejects.toThrow(
        /permission denied|must be superuser|pg_execute_server_program/,
      );
    } finally {
      await app.end();
      await db.destroy();
    }
  }, 120_000);
});
