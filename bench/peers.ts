/**
 * fast-test-db against the peers a user would pick instead, side by side in one run, legs
 * alternated: PGlite (in process, in memory), a PostgreSQL tuned by hand (the same binaries as
 * ours, data on tmpfs, fsync/synchronous_commit/full_page_writes off, nothing else), and the
 * machine's durable service (127.0.0.1:5432). Three figures, each where a peer is ahead:
 * - start to the first query with the server up: ours (createTestDatabase) against a hand
 *   CREATE DATABASE ... TEMPLATE and a connection to it;
 * - getting back to a clean database between tests: reset() against BEGIN ... ROLLBACK, over TCP
 *   and over the unix socket;
 * - a single-row INSERT: fastInsert against the pgbench floor over the unix socket.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { sql, TransactionRollbackError } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { fastInsert, withRollback } from '../adapters/drizzle/index.js';
import { withRollback as typeormWithRollback } from '../adapters/typeorm/index.js';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../src/index.js';
import { resolveServer } from '../src/server/providers/index.js';
import { stopOwnedServer } from '../src/server/registry.js';
import type { ServerInfo } from '../src/types.js';
import { benchDirs } from './lib/dirs.js';
import { startBenchPostgres } from './lib/postgres.js';
import { type ProbeResult, runProbe } from './lib/probe.js';
import { thirtyTableSchema } from './lib/schema30.js';
import { wireClient } from './lib/wire-floor.js';
import { row, withSpeedups, type Section } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');

export interface PeersOptions {
  /** Start probes per peer (each a fresh process). */
  starts: number;
  /** Resets / rollbacks per peer. */
  resets: number;
  /** Rows per insert sample, and samples per path. */
  rows: number;
  rounds: number;
  log: (line: string) => void;
}

interface Where {
  host: string;
  port: number;
  user: string;
  password?: string;
  socket?: string;
}

const whereOf = (s: ServerInfo): Where => ({ host: s.host, port: s.port, user: s.user, password: s.password, socket: s.socket });
const DURABLE: Where = { host: '127.0.0.1', port: 5432, user: 'postgres' };

const handEnv = (w: Where, template: string) => ({
  BENCH_PEER: 'hand',
  BENCH_PG_HOST: w.host,
  BENCH_PG_PORT: String(w.port),
  BENCH_PG_USER: w.user,
  BENCH_PG_PASSWORD: w.password ?? '',
  BENCH_PG_TEMPLATE: template,
});

async function withClient<T>(w: Where, database: string, fn: (c: pg.Client) => Promise<T>, socket = false): Promise<T> {
  const c = new pg.Client({ host: socket && w.socket ? w.socket : w.host, port: w.port, user: w.user, password: w.password, database });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A 30-table template on a server we do not otherwise touch; dropped by the caller. */
async function makeTemplate(w: Where, name: string): Promise<void> {
  await withClient(w, 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${name}`).then(() => c.query(`CREATE DATABASE ${name}`)));
  await withClient(w, name, (c) => c.query(thirtyTableSchema()));
}

const DIRTY = `INSERT INTO t01 (name) VALUES ('a'); INSERT INTO t02 (parent_id, name) SELECT id, 'b' FROM t01 LIMIT 1; INSERT INTO t10 (name) VALUES ('c')`;

/** One way back to a clean database: runs `inside` (the test's writes) and undoes them, each leg its own way. */
type CleanLeg = (inside: (query: (sql: string) => Promise<unknown>) => Promise<void>) => Promise<unknown>;

/** BEGIN and ROLLBACK on a connection, as a test's own hooks would send them. */
const sqlLeg =
  (query: (sql: string) => Promise<unknown>): CleanLeg =>
  async (inside) => {
    await query('BEGIN');
    await inside(query);
    await query('ROLLBACK');
  };

/**
 * The three dirty tables' inserts and each leg's way back from them, on each leg in turn, sample
 * by sample: the leg's time less the inserts', so a reset, or BEGIN plus ROLLBACK (and what a leg
 * does around them: a pool's checkout). Interleaved, so that the load of a shared machine falls on every
 * leg alike (legs timed one after the other differed 3x on a loaded run, 0.17 against 0.045 ms,
 * where interleaved they read the same). Each leg has a connection of its own, so each wakes its
 * connection from the same idle: a leg that followed another on the same connection read faster.
 */
async function cleanLegsMs(legs: Record<string, CleanLeg>, n: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(legs).map((k) => [k, []]));
  for (let i = 0; i < n + 5; i++)
    for (const [name, leg] of Object.entries(legs)) {
      let inserts = 0;
      const t = performance.now();
      await leg(async (query) => {
        const s = performance.now();
        for (const statement of DIRTY.split('; ')) await query(statement);
        inserts = performance.now() - s;
      });
      if (i >= 5) out[name]!.push(performance.now() - t - inserts);
    }
  return out;
}

/** A connection kept open for the legs of an interleaved measurement. */
async function openClient(w: Where, database: string, socket: boolean): Promise<pg.Client> {
  const c = new pg.Client({ host: socket && w.socket ? w.socket : w.host, port: w.port, user: w.user, password: w.password, database });
  await c.connect();
  return c;
}

const users = pgTable('peers_users', { id: serial('id').primaryKey(), name: text('name').notNull(), age: integer('age') });
const USERS_DDL = 'DROP TABLE IF EXISTS peers_users; CREATE TABLE peers_users (id serial PRIMARY KEY, name text NOT NULL, age int)';

/** pgbench's single-row INSERT, prepared, one client, over the unix socket: microseconds per row. */
function pgbenchUs(w: Where, database: string, rows: number): number {
  const dir = mkdtempSync(join(benchDirs().shm, 'pgbench-'));
  const script = join(dir, 'insert.sql');
  writeFileSync(script, "INSERT INTO peers_users (name, age) VALUES ('user', 42);\n");
  const r = spawnSync(
    'pgbench',
    [
      '-n',
      '-M',
      'prepared',
      '-c',
      '1',
      '-t',
      String(rows),
      '-f',
      script,
      '-h',
      w.socket ?? w.host,
      '-p',
      String(w.port),
      '-U',
      w.user,
      database,
    ],
    {
      env: { ...process.env, PGPASSWORD: w.password ?? '' },
      encoding: 'utf8',
    },
  );
  rmSync(dir, { recursive: true, force: true });
  const tps = /tps = ([\d.]+)/.exec(r.stdout)?.[1];
  if (!tps) throw new Error(`pgbench: ${r.stderr.trim().slice(0, 300)}`);
  return 1e6 / Number(tps);
}

async function perRowUs(rows: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await fn(i);
  const t = performance.now();
  for (let i = 0; i < rows; i++) await fn(i);
  return ((performance.now() - t) * 1000) / rows;
}

function pgbenchVersion(): string {
  return spawnSync('pgbench', ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** A start section of two rows, the hand path as the baseline. */
function handAgainstOurs(id: string, title: string, hand: [string, number[]], ours: [string, number[]], note: string): Section {
  return withSpeedups({
    id,
    title,
    unit: 'ms',
    baseline: 'hand-template',
    rows: [row('hand-template', ...hand), row('ours', ...ours)],
    notes: [note],
  });
}

export async function runPeers(opts: PeersOptions): Promise<{ sections: Section[]; versions: Record<string, string> }> {
  const dirs = benchDirs();
  const key = `bench-peers-${process.pid}`;
  const template = `peers_template_${process.pid}`;
  const pgliteVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version as string;
  const root = join(dirs.shm, 'peers');
  const ours = await resolveServer({ dataRoot: root, server: 'embedded' }, 'postgres');
  const hand = await startBenchPostgres('tmpfs-nodurable');
  const typeormVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/typeorm/package.json'), 'utf8')).version as string;
  const versions: Record<string, string> = { pglite: pgliteVersion, pgbench: pgbenchVersion(), typeorm: typeormVersion };
  const migrate = async (url: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(thirtyTableSchema());
    await c.end();
  };
  const prev = process.env.FAST_TEST_DB_DATA_ROOT;
  process.env.FAST_TEST_DB_DATA_ROOT = root;
  let durableUp = true;
  try {
    const handW = whereOf(hand.info);
    versions.ours = ours.version ?? '?';
    versions.hand = hand.settings.server_version ?? '?';
    versions.durable = await withClient(
      DURABLE,
      'postgres',
      async (c) => (await c.query('SHOW server_version')).rows[0].server_version,
    ).catch((e: Error) => ((durableUp = false), `unreachable: ${e.message}`));
    await makeTemplate(handW, template);
    if (durableUp) await makeTemplate(DURABLE, template);

    // 1. Start to the first query, a fresh process each, legs alternated. With no module loader
    // (as a Vitest worker loads the package), then ours and the hand path again under tsx's.
    const oursEnv = { FAST_TEST_DB_DATA_ROOT: root, BENCH_PROBE_KEY: key };
    await runProbe('start-probe.mjs', oursEnv); // builds the template: not measured
    const start: Record<'ours' | 'hand' | 'durable' | 'pglite' | 'pgliteSchema' | 'oursLoader' | 'handLoader', ProbeResult[]> = {
      ours: [],
      hand: [],
      durable: [],
      pglite: [],
      pgliteSchema: [],
      oursLoader: [],
      handLoader: [],
    };
    for (let i = 0; i < opts.starts; i++) {
      start.ours.push(await runProbe('start-probe.mjs', oursEnv));
      start.hand.push(await runProbe('peer-probe.mjs', handEnv(handW, template)));
      if (durableUp) start.durable.push(await runProbe('peer-probe.mjs', handEnv(DURABLE, template)));
      start.pglite.push(await runProbe('peer-probe.mjs', { BENCH_PEER: 'pglite' }));
      start.pgliteSchema.push(await runProbe('peer-probe.mjs', { BENCH_PEER: 'pglite', BENCH_PGLITE_SCHEMA: '1' }));
      start.oursLoader.push(await runProbe('start-probe.mjs', oursEnv, true));
      start.handLoader.push(await runProbe('peer-probe.mjs', handEnv(handW, template), true));
    }
    const firstQuery = (leg: keyof typeof start) => start[leg].map((p) => p.firstQueryMs);
    const withImports = (leg: keyof typeof start) => start[leg].map((p) => p.importMs + p.firstQueryMs);
    opts.log(
      `  peers start: ours ${fmt(firstQuery('ours'))} ms, hand ${fmt(firstQuery('hand'))} ms, under tsx ours ${fmt(firstQuery('oursLoader'))} ms, hand ${fmt(firstQuery('handLoader'))} ms, durable ${fmt(firstQuery('durable'))} ms, pglite ${fmt(firstQuery('pglite'))} ms`,
    );

    // 2. Back to clean between tests: reset() with 3 of 30 tables dirty against BEGIN/ROLLBACK.
    const db = await createTestDatabase({ cacheKey: key, migrate, worker: 'peersreset' });
    // The rollback legs on a database of their own: each rolled-back insert leaves a dead row, which
    // the reset's checks and deletes would otherwise read through (no autovacuum on our server).
    const rdb = await createTestDatabase({ cacheKey: key, migrate, worker: 'peersrollback' });
    let legs: Record<string, number[]> = {};
    const { PGlite } = await import('@electric-sql/pglite');
    const lite = new PGlite();
    await lite.exec(thirtyTableSchema());
    const opened: pg.Client[] = [];
    const pools: pg.Pool[] = [];
    const sources: DataSource[] = [];
    try {
      const client = async (w: Where, database: string, socket: boolean) => {
        const c = await openClient(w, database, socket);
        opened.push(c);
        return (sql: string) => c.query(sql);
      };
      const leg = async (w: Where, database: string, socket: boolean) => sqlLeg(await client(w, database, socket));
      // reset() after the same inserts, written by another connection (as an app's pool would).
      const writer = await client(whereOf(ours), db.name, true);
      await db.reset();
      const resetLeg =
        (dirty: number): CleanLeg =>
        async (inside) => {
          if (dirty) await inside(writer);
          const report = await db.reset();
          if (report.emptied.length !== dirty)
            throw new Error(`reset emptied ${report.emptied.join(', ') || 'nothing'}, expected ${dirty} tables`);
        };
      // Drizzle on a pool over the socket, as drizzleTestDb makes it.
      const drizzlePool = () => {
        const w = whereOf(ours);
        const pool = new pg.Pool({ host: w.socket, port: w.port, user: w.user, password: w.password, database: rdb.name, max: 1 });
        pools.push(pool);
        return drizzle(pool);
      };
      const d = drizzlePool();
      const byHand = drizzlePool();
      // TypeORM's DataSource on the socket, a pool of one, as a test's would be.
      const typeormSource = async () => {
        const w = whereOf(ours);
        const ds = new DataSource({
          type: 'postgres',
          host: w.socket,
          port: w.port,
          username: w.user,
          password: w.password,
          database: rdb.name,
          extra: { max: 1 },
        });
        sources.push(ds);
        return ds.initialize();
      };
      const ds = await typeormSource();
      const dsByHand = await typeormSource();
      legs = await cleanLegsMs(
        {
          reset: resetLeg(3),
          resetClean: resetLeg(0),
          withRollback: (inside) => withRollback(d, (tx) => inside((s) => tx.execute(sql.raw(s)))),
          // What a Drizzle user writes by hand for the same: the peer withRollback is read against.
          drizzleRollback: (inside) =>
            byHand
              .transaction(async (tx) => {
                await inside((s) => tx.execute(sql.raw(s)));
                tx.rollback();
              })
              .catch((e: unknown) => {
                if (!(e instanceof TransactionRollbackError)) throw e;
              }),
          typeormWithRollback: (inside) => typeormWithRollback(ds, (manager) => inside((s) => manager.query(s))),
          // What a TypeORM user writes by hand for the same: a QueryRunner's transaction, rolled back.
          typeormRollback: async (inside) => {
            const runner = dsByHand.createQueryRunner();
            await runner.connect();
            try {
              await runner.startTransaction();
              await inside((s) => runner.query(s));
              await runner.rollbackTransaction();
            } finally {
              await runner.release();
            }
          },
          ours: await leg(whereOf(ours), rdb.name, false),
          oursSocket: await leg(whereOf(ours), rdb.name, true),
          hand: await leg(handW, template, false),
          handSocket: await leg(handW, template, true),
          ...(durableUp ? { durable: await leg(DURABLE, template, false) } : {}),
          pglite: sqlLeg((s) => lite.query(s)),
        },
        opts.resets,
      );
    } finally {
      for (const c of opened) await c.end();
      for (const p of pools) await p.end();
      for (const source of sources) await source.destroy();
      await db.destroy({ force: true });
      await rdb.destroy({ force: true });
    }
    opts.log(
      `  peers reset: ours ${fmt(legs.reset!)} ms (clean ${fmt(legs.resetClean!)} ms), rollback on ours ${fmt(legs.ours!)} ms (socket ${fmt(legs.oursSocket!)}), hand ${fmt(legs.hand!)} ms (socket ${fmt(legs.handSocket!)}), pglite ${fmt(legs.pglite!)} ms, withRollback ${fmt(legs.withRollback!)} ms (Drizzle by hand ${fmt(legs.drizzleRollback!)} ms), on TypeORM ${fmt(legs.typeormWithRollback!)} ms (by hand ${fmt(legs.typeormRollback!)} ms)`,
    );

    // 3. Single-row INSERT, prepared, one at a time.
    const ins = {
      pgbenchHand: [] as number[],
      pgbenchOurs: [] as number[],
      rawTcp: [] as number[],
      rawSocket: [] as number[],
      fastTcp: [] as number[],
      fastSocket: [] as number[],
      poolSocket: [] as number[],
      fastClientSocket: [] as number[],
      pglite: [] as number[],
      wire: [] as number[],
    };
    const idb = await createTestDatabase({ cacheKey: key, migrate, worker: 'peersinsert' });
    try {
      await withClient(whereOf(ours), idb.name, (c) => c.query(USERS_DDL));
      await withClient(handW, template, (c) => c.query(USERS_DDL));
      await lite.exec(USERS_DDL);
      const q = { name: 'peers_insert', text: 'INSERT INTO peers_users (name, age) VALUES ($1, $2)' };
      for (let r = 0; r < opts.rounds; r++) {
        ins.pgbenchHand.push(pgbenchUs(handW, template, opts.rows));
        ins.pgbenchOurs.push(pgbenchUs(whereOf(ours), idb.name, opts.rows));
        for (const socket of [false, true]) {
          await withClient(
            whereOf(ours),
            idb.name,
            async (c) =>
              (socket ? ins.rawSocket : ins.rawTcp).push(await perRowUs(opts.rows, (i) => c.query({ ...q, values: [`user ${i}`, i] }))),
            socket,
          );
          const w = whereOf(ours);
          const pool = new pg.Pool({
            host: socket ? w.socket : w.host,
            port: w.port,
            user: w.user,
            password: w.password,
            database: idb.name,
            max: 1,
          });
          const d = drizzle(pool);
          try {
            (socket ? ins.fastSocket : ins.fastTcp).push(
              await perRowUs(opts.rows, (i) => fastInsert(d, users, { name: `user ${i}`, age: i }, { returning: false })),
            );
            // The floor of any ORM on a pool: the same statement through pool.query, no ORM.
            if (socket) ins.poolSocket.push(await perRowUs(opts.rows, (i) => pool.query({ ...q, values: [`user ${i}`, i] })));
          } finally {
            await pool.end();
          }
        }
        // fastInsert on one connection (a Drizzle made on a pg.Client, as inside a transaction).
        await withClient(
          whereOf(ours),
          idb.name,
          async (c) => {
            const one = drizzle(c);
            ins.fastClientSocket.push(
              await perRowUs(opts.rows, (i) => fastInsert(one, users, { name: `user ${i}`, age: i }, { returning: false })),
            );
          },
          true,
        );
        ins.pglite.push(await perRowUs(opts.rows, (i) => lite.query(q.text, [`user ${i}`, i])));
        const w = whereOf(ours);
        const wire = await wireClient(
          { socketDir: w.socket!, port: w.port, user: w.user, password: w.password, database: idb.name },
          q.text,
        );
        try {
          ins.wire.push(await perRowUs(opts.rows, (i) => wire.run([`user ${i}`, String(i)])));
        } finally {
          wire.end();
        }
      }
    } finally {
      await idb.destroy({ force: true });
      await lite.close();
    }
    opts.log(
      `  peers insert: pgbench ${fmt(ins.pgbenchOurs)} us, raw socket ${fmt(ins.rawSocket)} us (pool ${fmt(ins.poolSocket)} us), fastInsert tcp ${fmt(ins.fastTcp)} us, socket ${fmt(ins.fastSocket)} us (one client ${fmt(ins.fastClientSocket)} us), Node wire floor ${fmt(ins.wire)} us`,
    );

    const v = versions;
    return {
      versions,
      sections: [
        withSpeedups({
          id: 'peers-start',
          title: 'Start to the first query, server up (milliseconds)',
          unit: 'ms',
          baseline: 'hand-template',
          rows: [
            row(
              'hand-template',
              `hand-tuned PostgreSQL ${v.hand} on tmpfs: CREATE DATABASE ... TEMPLATE, connect, SELECT 1`,
              firstQuery('hand'),
            ),
            row('ours', `fast-test-db ${v.ours}: createTestDatabase(), connect, SELECT 1`, firstQuery('ours'), {
              note: 'target <= 1.0x hand-template',
            }),
            row('durable-template', `durable service ${v.durable}: CREATE DATABASE ... TEMPLATE, connect, SELECT 1`, firstQuery('durable')),
            row('pglite', `PGlite ${v.pglite}: new PGlite(), SELECT 1`, firstQuery('pglite')),
            row('pglite-schema', `PGlite ${v.pglite}: new PGlite(), the 30-table schema, SELECT 1`, firstQuery('pgliteSchema')),
          ],
          notes: [
            'Each sample is a fresh process with no module loader, timed after importing the driver or library; the templates hold the same 30 tables.',
          ],
        }),
        handAgainstOurs(
          'peers-start-imports',
          'The same, imports included (milliseconds)',
          ['hand: importing pg, then as above', withImports('hand')],
          ['fast-test-db: importing it and pg, then as above', withImports('ours')],
          'The same samples as the section above, with the time their imports took before the clock started.',
        ),
        handAgainstOurs(
          'peers-start-loader',
          "Start to the first query, server up, under tsx's module loader (milliseconds)",
          ['hand: as above, in a process run with --import tsx', firstQuery('handLoader')],
          ['fast-test-db: as above, in a process run with --import tsx', firstQuery('oursLoader')],
          'Timed after the imports, as above: the hand path loads no module after its clock starts, and ours loads its engine and server code on the first call, through the loader.',
        ),
        withSpeedups({
          id: 'peers-reset',
          title: 'Back to a clean database between tests, 3 of 30 tables written (microseconds)',
          unit: 'us',
          baseline: 'rollback-hand',
          rows: [
            row('rollback-hand', 'BEGIN + ROLLBACK, hand-tuned server, TCP', us(legs.hand!)),
            row('reset', 'fast-test-db reset(), 3 tables dirty', us(legs.reset!), {
              note: 'keeps commits, several connections, sequences',
            }),
            row('reset-clean', 'fast-test-db reset(), nothing to do', us(legs.resetClean!)),
            row('rollback-ours', "BEGIN + ROLLBACK, fast-test-db's server, TCP", us(legs.ours!)),
            row('rollback-hand-socket', 'BEGIN + ROLLBACK, hand-tuned server, unix socket', us(legs.handSocket!)),
            row('rollback-ours-socket', "BEGIN + ROLLBACK, fast-test-db's server, unix socket", us(legs.oursSocket!)),
            row(
              'with-rollback',
              "fast-test-db withRollback() on a Drizzle pool, fast-test-db's server, unix socket",
              us(legs.withRollback!),
              {
                note: 'the test writes through tx: limits in docs/isolation.md',
              },
            ),
            row('drizzle-rollback', "Drizzle's db.transaction() ended by tx.rollback(), by hand, a pool alike", us(legs.drizzleRollback!)),
            row(
              'typeorm-with-rollback',
              `fast-test-db withRollback() on a TypeORM ${v.typeorm} DataSource (pool of one), unix socket`,
              us(legs.typeormWithRollback!),
            ),
            row(
              'typeorm-rollback',
              'TypeORM QueryRunner: startTransaction(), rollbackTransaction(), release(), by hand, a DataSource alike',
              us(legs.typeormRollback!),
            ),
            row('rollback-durable', 'BEGIN + ROLLBACK, durable service, TCP', us(legs.durable ?? [])),
            row('rollback-pglite', 'BEGIN + ROLLBACK, PGlite', us(legs.pglite!)),
          ],
          notes: [
            'Each figure is a leg less its inserts: the reset, BEGIN and ROLLBACK, and for withRollback the pool checkout and release around them.',
            'Every leg runs interleaved, one sample of each in turn; reset() runs over the unix socket, as its own connection does, after inserts by another connection on the socket.',
          ],
        }),
        withSpeedups({
          id: 'peers-insert',
          title: 'Single-row INSERT, prepared, one at a time (microseconds per row)',
          unit: 'us',
          baseline: 'pgbench-ours',
          rows: [
            row('pgbench-ours', `pgbench (${v.pgbench}), unix socket, fast-test-db's server`, ins.pgbenchOurs),
            row('pgbench-hand', 'pgbench, unix socket, hand-tuned server', ins.pgbenchHand),
            row('raw-socket', 'pg driver, prepared, unix socket', ins.rawSocket),
            row('raw-tcp', 'pg driver, prepared, TCP 127.0.0.1', ins.rawTcp),
            row('fast-socket', 'Drizzle fastInsert, returning: false, unix socket', ins.fastSocket, { note: 'target <= 1.3x pgbench' }),
            row('fast-tcp', 'Drizzle fastInsert, returning: false, TCP 127.0.0.1', ins.fastTcp),
            row('pool-socket', 'pg Pool (max 1) query(), prepared, unix socket: the floor on a pool', ins.poolSocket),
            row('fast-client-socket', 'Drizzle fastInsert on one pg.Client, returning: false, unix socket', ins.fastClientSocket),
            row('pglite', `PGlite ${v.pglite} query(), in process`, ins.pglite),
            row('node-wire', 'Node, no driver: Bind + Execute + Sync on a unix socket, wait for ReadyForQuery', ins.wire, {
              note: "the floor of any Node client: Node's own round trip",
            }),
          ],
          notes: [`${opts.rows} rows per sample after 200 warm-up rows; pgbench: -M prepared -c 1, 1e6 / tps.`],
        }),
      ],
    };
  } finally {
    if (prev === undefined) delete process.env.FAST_TEST_DB_DATA_ROOT;
    else process.env.FAST_TEST_DB_DATA_ROOT = prev;
    await withClient(whereOf(hand.info), 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${template}`)).catch(() => undefined);
    if (durableUp)
      await withClient(DURABLE, 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)).catch(() => undefined);
    await hand.stop();
    if (ours.stateDir) await stopOwnedServer(ours.stateDir);
  }
}

const us = (ms: number[]) => ms.map((x) => x * 1000);

function fmt(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return (s[s.length >> 1] ?? NaN).toFixed(1);
}
