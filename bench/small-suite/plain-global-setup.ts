// The plain project's global setup, on a server that is already running: one database per worker,
// dropped and made again with the schema on every run, as projects without a library do.
import pg from 'pg';
import { SCHEMA } from './app/store.js';

export default async function setup(): Promise<void> {
  const url = process.env.BENCH_SMALL_PG_URL!;
  const workers = Number(process.env.BENCH_SMALL_WORKERS ?? 2);
  const admin = new pg.Client(url);
  await admin.connect();
  try {
    for (let i = 1; i <= workers; i++) {
      await admin.query(`DROP DATABASE IF EXISTS small_w${i}`);
      await admin.query(`CREATE DATABASE small_w${i}`);
      const db = new pg.Client(workerUrl(url, i));
      await db.connect();
      await db.query(SCHEMA);
      await db.end();
    }
  } finally {
    await admin.end();
  }
}

export function workerUrl(url: string, worker: number | string): string {
  const u = new URL(url);
  u.pathname = `/small_w${worker}`;
  return u.toString();
}
