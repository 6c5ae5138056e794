/**
 * What CPU pairing (src/runners/shared/cpu-pairing.ts) rests on: one prepared round trip, client and server
 * process placed three ways. `free`: where the scheduler puts them; `one CPU`: both pinned to the
 * first CPU; `two CPUs`: client on the first, server on the second. On the library's own
 * PostgreSQL (its Unix socket) and MariaDB (its socket), SELECT 1 and a one-row INSERT. Rounds go
 * round-robin over the placements; each keeps its best round.
 *
 *   npx tsx bench/round-trip.ts [--quick]
 *
 * Prints microseconds per round trip; writes bench/results/round-trip.json.
 */
import { execFileSync } from 'node:child_process';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { allowedList } from '../src/runners/shared/cpu-pairing.js';
import { quick, writeBenchResult } from './lib/args.js';
import { ensureBuilt, fromDist } from './lib/dist.js';

const N = quick ? 2000 : 10_000;
const ROUNDS = quick ? 2 : 5;

type Placement = 'free' | 'one CPU' | 'two CPUs';
const PLACEMENTS: Placement[] = ['free', 'one CPU', 'two CPUs'];

const pin = (task: number, cpus: string) => execFileSync('taskset', ['-pc', cpus, String(task)], { stdio: 'ignore' });

interface Session {
  /** The server's task serving this connection: a backend pid, a mariadbd thread id. */
  task: number;
  queries: Record<string, (i: number) => Promise<unknown>>;
  close(): Promise<void>;
}

async function measure(engine: string, session: Session): Promise<Array<Record<string, unknown>>> {
  const all = allowedList('thread-self');
  const place = (p: Placement) => {
    pin(process.pid, p === 'free' ? all : '0');
    pin(session.task, p === 'free' ? all : p === 'one CPU' ? '0' : '1');
  };
  const best = new Map<string, number>();
  for (const run of Object.values(session.queries)) for (let i = 0; i < 500; i++) await run(i);
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of PLACEMENTS) {
      place(p);
      for (const [query, run] of Object.entries(session.queries)) {
        const started = process.hrtime.bigint();
        for (let i = 0; i < N; i++) await run(i);
        const us = Number(process.hrtime.bigint() - started) / 1000 / N;
        const key = `${query}|${p}`;
        best.set(key, Math.min(best.get(key) ?? Infinity, us));
      }
    }
  }
  place('free');
  await session.close();
  return [...best].map(([key, us]) => {
    const [query, placement] = key.split('|');
    return { engine, query, placement, usPerRoundTrip: Math.round(us * 10) / 10 };
  });
}

async function postgres(): Promise<Session> {
  const { createTestDatabase } = await fromDist<typeof import('../src/index.js')>('index.js');
  const db = await createTestDatabase({ engine: 'postgres', worker: 'roundtrip' });
  const client = new pg.Client({ ...db.connection, host: db.server.socket ?? db.connection.host });
  await client.connect();
  await client.query('CREATE TABLE item (id serial PRIMARY KEY, n int NOT NULL)');
  const task = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    task,
    queries: {
      'SELECT 1': () => client.query({ name: 'one', text: 'SELECT 1', values: [] }),
      'INSERT ... RETURNING id': (i) => client.query({ name: 'ins', text: 'INSERT INTO item (n) VALUES ($1) RETURNING id', values: [i] }),
    },
    close: async () => {
      await client.end();
      await db.destroy();
    },
  };
}

async function mariadb(): Promise<Session> {
  const { createTestDatabase } = await fromDist<typeof import('../src/index.js')>('index.js');
  const db = await createTestDatabase({ engine: 'mysql', worker: 'roundtrip' });
  const { user, password, database } = db.connection;
  const conn = await mysql.createConnection(db.server.socket ? { socketPath: db.server.socket, user, password, database } : db.connection);
  await conn.query('CREATE TABLE item (id int AUTO_INCREMENT PRIMARY KEY, n int NOT NULL)');
  const [rows] = (await conn.query('SELECT TID AS tid FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()')) as unknown as [
    Array<{ tid: number }>,
  ];
  return {
    task: Number(rows[0]!.tid),
    queries: {
      'SELECT 1': () => conn.execute('SELECT 1'),
      'INSERT (insertId)': (i) => conn.execute('INSERT INTO item (n) VALUES (?)', [i]),
    },
    close: async () => {
      await conn.end();
      await db.destroy();
    },
  };
}

ensureBuilt((l) => process.stderr.write(`${l}\n`));
const results = [...(await measure('postgres', await postgres())), ...(await measure('mariadb', await mariadb()))];
process.stdout.write(`\nround trip, best of ${ROUNDS} rounds of ${N} (us)\n`);
for (const r of results)
  process.stdout.write(
    `${String(r.engine).padEnd(9)} ${String(r.query).padEnd(24)} ${String(r.placement).padEnd(9)} ${r.usPerRoundTrip}\n`,
  );
writeBenchResult('round-trip', { roundTrips: N, rounds: ROUNDS, results });
process.exit(0);
