/**
 * `fast-test-db start` in place of a compose file's database service: an app whose credentials are
 * fixed (host, port, user test, password test, database test) connects to our tuned server with no
 * change, on PostgreSQL and MariaDB, and finds an empty database of its own, never a system one.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { exited, isolatedEnv, jsonLines, runCli, spawnCli, waitForOutput } from './cli.js';

const iso = isolatedEnv('cli-dropin');
afterAll(() => iso.cleanup());
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].some((b) => existsSync(b));

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** What the app does with its hard-coded settings: who am I, what is here, can I write. */
const apps = {
  async postgres(port: number) {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'test', password: 'test', database: 'test' });
    await c.connect();
    try {
      const who = (await c.query<{ u: string; d: string }>('SELECT current_user AS u, current_database() AS d')).rows[0]!;
      const tables = Number(
        (await c.query<{ n: string }>(`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'`)).rows[0]!.n,
      );
      await c.query('CREATE TABLE gift (id serial PRIMARY KEY, label text NOT NULL)');
      await c.query(`INSERT INTO gift (label) VALUES ('kite')`);
      const rows = (await c.query<{ label: string }>('SELECT label FROM gift')).rows.map((r) => r.label);
      // An app's own test setup often creates a database of its own: the login may.
      await c.query('CREATE DATABASE test_other');
      return { user: who.u, database: who.d, tablesBefore: tables, rows };
    } finally {
      await c.end();
    }
  },
  async mysql(port: number) {
    const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'test', password: 'test', database: 'test' });
    try {
      const [[who]] = (await c.query('SELECT SUBSTRING_INDEX(CURRENT_USER(), "@", 1) AS u, DATABASE() AS d')) as unknown as [
        [{ u: string; d: string }],
      ];
      const [[count]] = (await c.query(`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'test'`)) as unknown as [
        [{ n: number }],
      ];
      await c.query('CREATE TABLE gift (id int AUTO_INCREMENT PRIMARY KEY, label varchar(40) NOT NULL)');
      await c.query(`INSERT INTO gift (label) VALUES ('kite')`);
      const [rows] = (await c.query('SELECT label FROM gift')) as unknown as [Array<{ label: string }>];
      await c.query('CREATE DATABASE test_other');
      return { user: who.u, database: who.d, tablesBefore: Number(count.n), rows: rows.map((r) => r.label) };
    } finally {
      await c.end();
    }
  },
};

describe.each([
  { engine: 'postgres' as const, run: true },
  { engine: 'mysql' as const, run: MARIADBD },
])('start as a drop-in for a compose service ($engine)', ({ engine, run }) => {
  test.skipIf(!run)('an app with fixed credentials connects, finds an empty database of its own, and may create databases', async () => {
    const port = await freePort();
    const start = spawnCli(
      ['start', '--engine', engine, '--port', String(port), '--user', 'test', '--password', 'test', '--database', 'test', '--json'],
      iso.env,
    );
    try {
      await waitForOutput(start, (o) => o.includes('"event":"ready"'));
      const ready = jsonLines<{ url: string; adminUrl: string; database: string; user: string; server: { port: number } }>(start.out())[0]!;
      expect(ready.server.port).toBe(port);
      expect(ready).toMatchObject({ database: 'test', user: 'test' });
      expect(ready.url).toBe(`${engine}://test:test@127.0.0.1:${port}/test`);
      expect(await apps[engine](port)).toEqual({ user: 'test', database: 'test', tablesBefore: 0, rows: ['kite'] });
      if (engine === 'mysql') {
        // The password is checked: the login is the app's, not an open door.
        await expect(
          mysql.createConnection({ host: '127.0.0.1', port, user: 'test', password: 'wrong', database: 'test' }),
        ).rejects.toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR' });
      }
      start.kill('SIGINT');
      expect(await exited(start)).toBe(0);
    } finally {
      if (start.exitCode === null) start.kill('SIGKILL');
    }
  });

  test.skipIf(!run)('a system database is never handed out', async () => {
    const system = engine === 'postgres' ? 'postgres' : 'mysql';
    const r = await runCli(['start', '--engine', engine, '--database', system], iso.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`[BAD_OPTION] --database ${system} is one of the server's own databases`);
  });
});
