/** PostgreSQL: template databases cloned with CREATE DATABASE ... TEMPLATE; one file per role beside this one. */
import { POSTGRES_PER_DATABASE, POSTGRES_TUNED_EXPECT } from '../tuning.js';
import type { DescribeReport } from '../../types.js';
import { logger } from '../../util/log.js';
import { driverErrorKind } from '../../errors.js';
import { sleep } from '../../util/sleep.js';
import { quoteIdent, quoteLiteral } from '../../util/quote.js';
import { decodeMarker, encodeMarker, stagingName, type Dialect, type OpenSession } from '../dialect.js';
import { connectPostgres, postgresUrl, type PgClient } from './client.js';
import { createStaged, listOurs, listStaging, readMarker } from './marker.js';
import { readResetBaseline, resetDatabase, snapshotSeeded, type ResetBaseline } from './reset.js';
import { convertToUnlogged } from './unlogged.js';

const log = logger('postgres');
const id = (name: string) => quoteIdent('postgres', name);
const lit = (value: string) => quoteLiteral('postgres', value);

export interface PostgresDialectOptions {
  /**
   * How CREATE DATABASE copies a template on PostgreSQL 15+. FILE_COPY (default) copies the files
   * (one checkpoint, cheap with fsync off); WAL_LOG, 15's default, writes every block to WAL.
   */
  cloneStrategy?: 'file_copy' | 'wal_log';
}

export type PostgresDialect = Dialect<PgClient>;

/** Ends every other session on `name` (DROP and RENAME then wait for them to exit). */
async function endConnections(admin: PgClient, name: string): Promise<void> {
  await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
}

async function openSessions(admin: PgClient, name: string): Promise<OpenSession[]> {
  const rows = await admin.query<{
    pid: number;
    app: string;
    addr: string | null;
    port: number | null;
    state: string | null;
    query: string;
  }>(
    `SELECT pid, application_name AS app, host(client_addr) AS addr, client_port AS port, state, left(query, 120) AS query
       FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [name],
  );
  return rows.map((r) => ({
    pid: r.pid,
    application: r.app || undefined,
    client: r.addr ? `${r.addr}:${r.port}` : 'local socket',
    state: r.state ?? undefined,
    query: r.query || undefined,
  }));
}

async function sessionTasks(admin: PgClient, name: string): Promise<number[]> {
  const rows = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
    name,
  ]);
  return rows.map((r) => r.pid);
}

/** Client backends only: autovacuum, the checkpointer and the like are the server's own. */
async function sessions(admin: PgClient): Promise<OpenSession[]> {
  const rows = await admin.query<{ pid: number; user: string | null; database: string | null; application: string; client: string | null }>(
    `SELECT pid, usename AS "user", datname AS database, application_name AS application,
            coalesce(host(client_addr) || ':' || client_port, 'local socket') AS client
       FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY pid`,
  );
  return rows.map((r) => ({
    pid: r.pid,
    user: r.user ?? undefined,
    database: r.database ?? undefined,
    application: r.application || undefined,
    client: r.client ?? undefined,
  }));
}

export function createPostgresDialect(options: PostgresDialectOptions = {}): PostgresDialect {
  const strategy = options.cloneStrategy === 'wal_log' ? 'WAL_LOG' : 'FILE_COPY';
  return {
    engine: 'postgres',
    staged: true,
    connect: connectPostgres,
    url: postgresUrl,

    async withLock(admin, key, fn) {
      await admin.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
      try {
        return await fn();
      } finally {
        await admin.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
      }
    },

    async withFreeLock(admin, key, fn) {
      const [row] = await admin.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got`, [
        `fast-test-db:${key}`,
      ]);
      if (!row?.got) return undefined;
      try {
        return await fn();
      } finally {
        await admin.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
      }
    },

    async templateState(admin, name) {
      const rows = await admin.query<{ istemplate: boolean; comment: string | null }>(
        `SELECT datistemplate AS istemplate, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
        [name],
      );
      if (rows.length === 0) return 'missing';
      if (decodeMarker(rows[0]!.comment)?.kind !== 'template') return 'unmarked';
      return rows[0]!.istemplate ? 'complete' : 'incomplete';
    },

    async createEmpty(admin, name, marker) {
      await createStaged(admin, name, 'template', `CREATE DATABASE ${id(stagingName(name))}`, () => encodeMarker(marker));
    },

    async completeTemplate(admin, server, name, opts) {
      const db = await connectPostgres(server, name);
      let state: ResetBaseline;
      try {
        if (opts.unlogged) log('unlogged: %o', await convertToUnlogged(db));
        state = await readResetBaseline(db);
        state = { ...state, ...(await snapshotSeeded(db, state.seeded, opts.unlogged)) };
      } finally {
        await db.close();
      }
      const marker = {
        ...(await readMarker(admin, name))!,
        seeded: [...state.seeded],
        sequences: { ...state.sequences },
        seedRows: state.seedRows,
        seedXid: state.seedXid,
        unpopulated: [...(state.unpopulated ?? [])],
        largeObjects: [...(state.largeObjects ?? [])],
      };
      // Migrations may leave pooled connections behind; a template must have none to be cloned.
      await endConnections(admin, name);
      await admin.query(`COMMENT ON DATABASE ${id(name)} IS ${lit(encodeMarker(marker))}`);
      await admin.query(`ALTER DATABASE ${id(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    },

    async clone(admin, server, template, name, marker) {
      // bench/ measures both strategies.
      const using = server.major >= 15 ? ` STRATEGY ${strategy}` : '';
      // The clone carries what reset() must restore, so that reset needs nothing but its own connection.
      const from = await readMarker(admin, template);
      const { seeded, sequences, seedRows, seedXid, unpopulated, largeObjects } = from ?? {};
      await createStaged(admin, name, 'clone', `CREATE DATABASE ${id(stagingName(name))} TEMPLATE ${id(template)}${using}`, () =>
        encodeMarker({ ...marker, seeded, sequences, seedRows, seedXid, unpopulated, largeObjects }),
      );
    },

    async drop(admin, name, opts) {
      // A template cannot be dropped while marked as one. One already gone (renamed or dropped by its
      // creator since it was listed) is as good as dropped, as DROP DATABASE IF EXISTS would say.
      try {
        await admin.query(`ALTER DATABASE ${id(name)} IS_TEMPLATE false`);
      } catch (e) {
        if (driverErrorKind(e) === 'database-missing') return;
        throw e;
      }
      if (opts.force) await endConnections(admin, name);
      await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`);
    },

    async writeMarker(admin, name, marker) {
      await admin.query(`COMMENT ON DATABASE ${id(name)} IS ${lit(encodeMarker(marker))}`);
    },

    readMarker,
    listStaging,
    listOurs,

    async createLogin(admin, user, password) {
      const exists = (await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [user])).length > 0;
      await admin.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${id(user)} LOGIN CREATEDB PASSWORD ${lit(password)}`);
    },

    async grantDatabase(admin, name, user) {
      await admin.query(`ALTER DATABASE ${id(name)} OWNER TO ${id(user)}`);
    },

    async tuneDatabase(admin, name) {
      for (const [k, v] of Object.entries(POSTGRES_PER_DATABASE)) await admin.query(`ALTER DATABASE ${id(name)} SET ${id(k)} = ${lit(v)}`);
    },

    openSessions,
    reset: (db, _name, keep) => resetDatabase(db, keep),

    // recreate() off the hot path (src/recreate.ts): a rename is a catalog update, no checkpoint.
    async renameDatabases(admin, renames) {
      // A session that just disconnected (a test file's pool) takes a moment to exit, and the server
      // waits for it in steps of 100 ms; looking every 2 ms (for at most 200 ms) waits far less.
      const from = renames.map(([f]) => f);
      for (let i = 0; i < 100; i++) {
        const rows = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid() LIMIT 1`, [
          from,
        ]);
        if (rows.length === 0) break;
        await sleep(2);
      }
      // One round trip, one implicit transaction: a swap never leaves the name missing.
      await admin.query(renames.map(([f, t]) => `ALTER DATABASE ${id(f)} RENAME TO ${id(t)}`).join('; '));
    },

    endConnections,
    sessionTasks,
    sessions,

    async describe(admin, server): Promise<DescribeReport> {
      const names = [
        ...Object.keys(POSTGRES_TUNED_EXPECT),
        'server_version',
        'max_connections',
        'wal_level',
        'max_wal_size',
        'checkpoint_timeout',
        'autovacuum',
        'shared_buffers',
      ];
      const rows = await admin.query<{ name: string; setting: string }>(
        `SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1)`,
        [names],
      );
      const settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
      const untuned: DescribeReport['untuned'] = {};
      for (const [k, expected] of Object.entries(POSTGRES_TUNED_EXPECT))
        if (settings[k] !== expected) untuned[k] = { expected, actual: settings[k] ?? '' };
      return {
        engine: 'postgres',
        flavor: 'postgres',
        version: (settings.server_version ?? server.version).split(' ')[0]!,
        owned: server.owned,
        provider: server.provider,
        tuned: Object.keys(untuned).length === 0,
        settings,
        untuned,
      };
    },
  };
}
