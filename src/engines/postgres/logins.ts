/** Logins for apps whose credentials are fixed: a role that may create databases, owning the ones handed to it. */
import type { Logins } from '../engine.js';
import { connectPostgres, type PgClient } from './client.js';
import { id, lit } from './quote.js';

export const logins: Logins<PgClient> = {
  async createLogin(admin, user, password) {
    const exists = (await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [user])).length > 0;
    await admin.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${id(user)} LOGIN CREATEDB PASSWORD ${lit(password)}`);
  },

  async grantDatabase(admin, name, user) {
    await admin.query(`ALTER DATABASE ${id(name)} OWNER TO ${id(user)}`);
  },

  async grantContents(admin, server, name, user) {
    // Owner, not a superuser nor a member of the admin role: either would let anyone who knows the
    // app's password (written in its code) run programs as us (COPY ... TO PROGRAM). Owner, not
    // GRANT ALL: TRUNCATE ... RESTART IDENTITY, ALTER TABLE and ALTER TYPE ... ADD VALUE need it.
    const [row] = await admin.query<{ allow: boolean }>(`SELECT datallowconn AS allow FROM pg_database WHERE datname = $1`, [name]);
    if (!row) return;
    if (!row.allow) await admin.query(`ALTER DATABASE ${id(name)} ALLOW_CONNECTIONS true`);
    try {
      const db = await connectPostgres(server, name);
      try {
        const statements = (await db.query<{ sql: string }>(OWNED_BY_US, [user])).map((r) => `${r.sql};`);
        // One round trip for a schema of any size (the simple protocol takes many statements).
        if (statements.length) await db.query(statements.join('\n'));
      } finally {
        await db.close();
      }
    } finally {
      // A template takes no connections again: a session on it would stop its clones.
      if (!row.allow) await admin.query(`ALTER DATABASE ${id(name)} ALLOW_CONNECTIONS false`);
    }
  },
};

/**
 * The statements that hand the app's schemas and what is in them to login $1: schemas, tables,
 * views, standalone sequences (a column's sequence follows its table), routines and standalone
 * types. Extensions' members stay the extension's.
 */
const OWNED_BY_US = `
WITH who AS (SELECT $1::text AS u),
ns AS (SELECT oid, nspname FROM pg_namespace WHERE nspname !~ '^pg_' AND nspname <> 'information_schema'),
ext AS (SELECT objid, classid FROM pg_depend WHERE deptype = 'e')
SELECT format('ALTER SCHEMA %I OWNER TO %I', nspname, (SELECT u FROM who)) AS sql FROM ns
  WHERE NOT EXISTS (SELECT 1 FROM ext WHERE objid = ns.oid AND classid = 'pg_namespace'::regclass)
UNION ALL
SELECT format('ALTER %s %s OWNER TO %I', CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.oid::regclass, (SELECT u FROM who))
  FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
    AND NOT EXISTS (SELECT 1 FROM ext WHERE objid = c.oid AND classid = 'pg_class'::regclass)
    AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
UNION ALL
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, (SELECT u FROM who))
  FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
  WHERE p.prokind IN ('f', 'p') AND NOT EXISTS (SELECT 1 FROM ext WHERE objid = p.oid AND classid = 'pg_proc'::regclass)
UNION ALL
SELECT format('ALTER TYPE %s OWNER TO %I', t.oid::regtype, (SELECT u FROM who))
  FROM pg_type t JOIN ns ON ns.oid = t.typnamespace
  WHERE (t.typtype IN ('e', 'd', 'r') OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
    AND NOT EXISTS (SELECT 1 FROM ext WHERE objid = t.oid AND classid = 'pg_type'::regclass)`;
