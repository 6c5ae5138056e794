/** PostgreSQL: template databases, UNLOGGED conversion, dirty-table reset, settings read-back. */
import { classifyDriverError, FastTestDbError } from '../errors.js';
import { logger } from '../log.js';
import { loadPeer } from '../peer.js';
import { quoteIdent, quoteLiteral } from '../quote.js';
import { POSTGRES_PER_DATABASE, POSTGRES_TUNED_EXPECT } from '../tuning.js';
import type { DescribeReport, ServerInfo } from '../types.js';
import { pausePoint } from '../debug-pause.js';
import { decodeMarker, encodeMarker, isStagingName, stagingName, type Dialect, type Marker, type SqlClient } from './dialect.js';
import { readTemplateState, resetPostgres, snapshotSeeded, type TemplateState } from './postgres-reset.js';

const log = logger('postgres');
const id = (name: string) => quoteIdent('postgres', name);
const lit = (value: string) => quoteLiteral('postgres', value);

/** The part of node-postgres we use. */
interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
  end(): Promise<void>;
  on(event: 'error' | 'notice', fn: (arg: any) => void): void;
}

async function connect(server: ServerInfo, database?: string): Promise<SqlClient & { raw: PgClient }> {
  const pg = await loadPeer<any>('pg', 'PostgreSQL support');
  const Client = pg.Client ?? pg.default?.Client;
  const client: PgClient = new Client({
    host: server.socket ?? server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: database ?? server.adminDatabase,
    // A host that drops packets must fail, not hang a test run.
    connectionTimeoutMillis: 15_000,
  });
  // A connection terminated server-side (DROP ... WITH (FORCE)) must not crash the process.
  client.on('error', (e) => log('connection error: %s', e.message));
  try {
    await client.connect();
  } catch (e) {
    throw classifyDriverError(e, `connecting to PostgreSQL at ${server.socket ?? server.host}:${server.port} as ${server.user}`);
  }
  return {
    raw: client,
    async query<T>(sql: string, params?: unknown[]) {
      log('%s', sql);
      try {
        return (await client.query(sql, params)).rows as T[];
      } catch (e) {
        throw classifyDriverError(e, `PostgreSQL: ${sql.length > 200 ? sql.slice(0, 200) + '…' : sql}`);
      }
    },
    close: () => client.end().catch(() => undefined),
  };
}

function url(server: ServerInfo, database: string): string {
  const auth = encodeURIComponent(server.user) + (server.password ? ':' + encodeURIComponent(server.password) : '');
  return `postgres://${auth}@${server.host}:${server.port}/${encodeURIComponent(database)}`;
}

async function readMarker(admin: SqlClient, name: string): Promise<Marker | null | undefined> {
  const rows = await admin.query<{ comment: string | null }>(`SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`, [name]);
  if (rows.length === 0) return undefined;
  return decodeMarker(rows[0]!.comment);
}

/**
 * Table conversion to UNLOGGED. A permanent table may not reference an unlogged one, so tables are
 * converted referencing-first. Foreign keys inside a cycle are dropped, the cycle converted, and the
 * keys added back (they validate again). Partitioned parents hold no data and cannot change
 * persistence: their partitions are converted, and any table a partitioned table references stays
 * permanent (as do tables those reference), since a permanent table cannot point at an unlogged one.
 */
async function convertToUnlogged(db: SqlClient): Promise<string[]> {
  const tables = await db.query<{ oid: number; name: string; kind: string }>(`
    SELECT c.oid::int AS oid, c.oid::regclass::text AS name, c.relkind AS kind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`);
  const fks = await db.query<{ name: string; from: number; to: number; def: string }>(`
    SELECT conname AS name, conrelid::int AS "from", confrelid::int AS "to", pg_get_constraintdef(oid) AS def
    FROM pg_constraint WHERE contype = 'f' AND conparentid = 0`);
  const byOid = new Map(tables.map((t) => [t.oid, t]));
  // Tables that must stay permanent: partitioned parents and everything they reach through FKs.
  const stay = new Set(tables.filter((t) => t.kind === 'p').map((t) => t.oid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const fk of fks) if (stay.has(fk.from) && byOid.has(fk.to) && !stay.has(fk.to)) stay.add(fk.to), (grew = true);
  }
  const convert = new Set(tables.filter((t) => !stay.has(t.oid)).map((t) => t.oid));
  const edges = fks.filter((fk) => fk.from !== fk.to && convert.has(fk.from) && convert.has(fk.to));
  // Kahn's algorithm: a table goes once nothing still permanent references it.
  const order: number[] = [];
  const referencedBy = new Map<number, number>();
  for (const e of edges) referencedBy.set(e.to, (referencedBy.get(e.to) ?? 0) + 1);
  const ready = [...convert].filter((t) => !referencedBy.get(t));
  const done = new Set<number>();
  while (ready.length) {
    const t = ready.shift()!;
    order.push(t);
    done.add(t);
    for (const e of edges) if (e.from === t) {
      const left = referencedBy.get(e.to)! - 1;
      referencedBy.set(e.to, left);
      if (left === 0) ready.push(e.to);
    }
  }
  const cyclic = [...convert].filter((t) => !done.has(t));
  const cycleKeys = edges.filter((e) => cyclic.includes(e.from) && cyclic.includes(e.to));
  const name = (oid: number) => byOid.get(oid)!.name; // regclass text is already quoted where needed
  const sql: string[] = [];
  for (const k of cycleKeys) sql.push(`ALTER TABLE ${name(k.from)} DROP CONSTRAINT ${id(k.name)}`);
  for (const t of [...order, ...cyclic]) sql.push(`ALTER TABLE ${name(t)} SET UNLOGGED`);
  for (const k of cycleKeys) sql.push(`ALTER TABLE ${name(k.from)} ADD CONSTRAINT ${id(k.name)} ${k.def}`);
  if (sql.length) await db.query(`BEGIN; ${sql.join('; ')}; COMMIT`);
  return [...order, ...cyclic].map(name);
}

/**
 * CREATE DATABASE and COMMENT ON DATABASE cannot share a transaction, so a database is created under
 * its staging name (ours by name alone), marked, and only then renamed into place: `name` never
 * exists unmarked, and a kill at any step leaves something the next run and `clean` recognise.
 */
async function createStaged(admin: SqlClient, name: string, step: 'clone' | 'template', create: string, marker: () => string): Promise<void> {
  const staging = stagingName(name);
  await admin.query(create);
  try {
    await pausePoint(`${step}:created`);
    await admin.query(`COMMENT ON DATABASE ${id(staging)} IS ${lit(marker())}`);
    await pausePoint(`${step}:marked`);
    await admin.query(`ALTER DATABASE ${id(staging)} RENAME TO ${id(name)}`);
  } catch (e) {
    // Leave nothing behind (the final name may have been taken meanwhile: 42P04, mapped by the caller).
    await admin.query(`DROP DATABASE IF EXISTS ${id(staging)}`).catch((dropError) => log('could not drop %s: %s', staging, (dropError as Error).message));
    throw e;
  }
  await pausePoint(`${step}:renamed`);
}

/** Ends every other session on `name` (DROP and RENAME then wait for them to exit). */
async function endConnections(admin: SqlClient, name: string): Promise<void> {
  await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
}

const resetState = new WeakMap<SqlClient, TemplateState>();

export const postgresDialect: Dialect & { connect: typeof connect } = {
  engine: 'postgres',
  family: 'postgres',
  staged: true,
  connect,
  url,

  async withLock(admin, key, fn) {
    await admin.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [`fast-test-db:${key}`]);
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
    const db = await connect(server, name);
    let state: TemplateState;
    try {
      if (opts.unlogged) log('unlogged: %o', await convertToUnlogged(db));
      state = await readTemplateState(db);
      state = { ...state, ...(await snapshotSeeded(db, state.seeded, opts.unlogged)) };
    } finally {
      await db.close();
    }
    const marker = { ...(await readMarker(admin, name))!, seeded: [...state.seeded], sequences: { ...state.sequences }, seedRows: state.seedRows, seedXid: state.seedXid };
    // Migrations may leave pooled connections behind; a template must have none to be cloned.
    await endConnections(admin, name);
    await admin.query(`COMMENT ON DATABASE ${id(name)} IS ${lit(encodeMarker(marker))}`);
    await admin.query(`ALTER DATABASE ${id(name)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  },

  async clone(admin, server, template, name, marker) {
    // FILE_COPY copies the template's files (one checkpoint, which is cheap with fsync off);
    // WAL_LOG, the default since 15, writes every block to WAL. bench/ measures both.
    const strategy = server.major >= 15 ? ` STRATEGY ${process.env.FAST_TEST_DB_CLONE_STRATEGY === 'wal_log' ? 'WAL_LOG' : 'FILE_COPY'}` : '';
    // The clone carries what reset() must restore, so that reset needs nothing but its own connection.
    const from = await readMarker(admin, template);
    const { seeded, sequences, seedRows, seedXid } = from ?? {};
    await createStaged(admin, name, 'clone', `CREATE DATABASE ${id(stagingName(name))} TEMPLATE ${id(template)}${strategy}`, () =>
      encodeMarker({ ...marker, seeded, sequences, seedRows, seedXid }),
    );
  },

  async drop(admin, name, opts) {
    // A template cannot be dropped while marked as one.
    await admin.query(`ALTER DATABASE ${id(name)} IS_TEMPLATE false`);
    if (opts.force) await endConnections(admin, name);
    await admin.query(`DROP DATABASE IF EXISTS ${id(name)}`);
  },

  readMarker,

  async listStaging(admin) {
    const rows = await admin.query<{ name: string }>(`SELECT datname AS name FROM pg_database WHERE strpos(datname, '__new_') > 0`);
    return rows.map((r) => r.name).filter(isStagingName);
  },

  async listOurs(admin, prefix) {
    const rows = await admin.query<{ name: string; comment: string | null }>(
      `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE starts_with(datname, $1)`,
      [prefix],
    );
    return rows.flatMap((r) => {
      const marker = decodeMarker(r.comment);
      return marker ? [{ name: r.name, marker }] : [];
    });
  },

  async tuneDatabase(admin, name) {
    for (const [k, v] of Object.entries(POSTGRES_PER_DATABASE)) await admin.query(`ALTER DATABASE ${id(name)} SET ${id(k)} = ${lit(v)}`);
  },

  async reset(db, _name, keep) {
    let state = resetState.get(db);
    if (!state) {
      const [row] = await db.query<{ comment: string | null }>(`SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()`);
      const marker = decodeMarker(row?.comment);
      if (!marker) throw new FastTestDbError('NOT_OURS', 'reset refused: this database was not created by fast-test-db', 'reset only databases that createTestDatabase() returned');
      state = { seeded: marker.seeded ?? keep, sequences: marker.sequences ?? {}, seedRows: marker.seedRows, seedXid: marker.seedXid };
      resetState.set(db, state);
    }
    return resetPostgres(db, state);
  },

  // recreate() off the hot path (src/recreate.ts): a rename is a catalog update, no checkpoint.
  async renameDatabases(admin, renames) {
    // A session that just disconnected (a test file's pool) takes a moment to exit, and the server
    // waits for it in steps of 100 ms; looking every 2 ms (for at most 200 ms) waits far less.
    const from = renames.map(([f]) => f);
    for (let i = 0; i < 100; i++) {
      const rows = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid() LIMIT 1`, [from]);
      if (rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    // One round trip, one implicit transaction: a swap never leaves the name missing.
    await admin.query(renames.map(([f, t]) => `ALTER DATABASE ${id(f)} RENAME TO ${id(t)}`).join('; '));
  },

  endConnections,

  async describe(admin, server): Promise<DescribeReport> {
    const names = [...Object.keys(POSTGRES_TUNED_EXPECT), 'server_version', 'max_connections', 'wal_level', 'max_wal_size', 'checkpoint_timeout', 'autovacuum', 'shared_buffers'];
    const rows = await admin.query<{ name: string; setting: string }>(`SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1)`, [names]);
    const settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    const untuned: DescribeReport['untuned'] = {};
    for (const [k, expected] of Object.entries(POSTGRES_TUNED_EXPECT)) if (settings[k] !== expected) untuned[k] = { expected, actual: settings[k] ?? '' };
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
