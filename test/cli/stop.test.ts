/**
 * `fast-test-db stop` and `start --port` against real servers the CLI starts: who is connected is
 * named and the server kept unless --force, a server we did not start is never stopped, and a
 * port asked for is served or refused, never silently swapped.
 */
import { existsSync } from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { freePort } from '../../src/server/registry.js';
import { startPlainPostgres } from '../helpers/plain-postgres.js';
import { exited, isolatedEnv, jsonLines, runCli, spawnCli, waitForOutput } from './cli.js';

const iso = isolatedEnv('cli-stop');
const env = iso.env;
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].some((b) => existsSync(b));
afterAll(() => iso.cleanup());

async function answers(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

describe('stop', () => {
  test('PostgreSQL: names the connected client and refuses; --force stops it and its data goes', async () => {
    const started = await runCli(['url', '--json'], env);
    expect(started.code).toBe(0);
    // The server outlives the command: the line says how to stop it.
    expect(started.stderr).toMatch(/started PostgreSQL [\d.]+; it stops after 15m without clients, or now with fast-test-db stop/);
    const { url, server } = jsonLines<{ url: string; server: { stateDir: string } }>(started.stdout)[0]!;
    const client = new pg.Client({ connectionString: url, application_name: 'held-open-by-test' });
    await client.connect();
    client.on('error', () => {});
    try {
      const refused = await runCli(['stop'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('[SERVER_IN_USE]');
      expect(refused.stderr).toContain('--force');
      expect(refused.stdout).toMatch(/client pid \d+: held-open-by-test, database postgres, user postgres/);
      expect(await answers(url)).toBe(true);

      const forced = await runCli(['stop', '--force'], env);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain('held-open-by-test');
      expect(forced.stderr).toContain('--force: cutting off the clients listed above');
      expect(forced.stdout).toContain('stopped 1 server(s) of this project');
      expect(await answers(url)).toBe(false);
      expect(existsSync(server.stateDir)).toBe(false);
    } finally {
      await client.end().catch(() => {});
    }
    const again = await runCli(['stop'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('no server of this project is running');
  }, 120_000);

  test('a server we did not start keeps running, even with --all --force and its URL in FAST_TEST_DB_URL', async () => {
    await using plain = await startPlainPostgres({ root: iso.root });
    const ours = await runCli(['url', '--json'], env);
    const { url } = jsonLines<{ url: string }>(ours.stdout)[0]!;
    const r = await runCli(['stop', '--all', '--force', '--json'], { ...env, FAST_TEST_DB_URL: plain.url });
    expect(r.code).toBe(0);
    const stopped = jsonLines<{ event: string; servers: Array<{ port: number; action: string }> }>(r.stdout).at(-1)!;
    expect(stopped.event).toBe('stopped');
    expect(stopped.servers.map((s) => s.port)).not.toContain(plain.port);
    expect(await answers(plain.url)).toBe(true);
    expect(await answers(url)).toBe(false);
  }, 120_000);

  test('a foreground start is stopped the way Ctrl-C stops it, and exits 0', async () => {
    const start = spawnCli(['start', '--json'], env);
    await waitForOutput(start, (o) => o.includes('"event":"ready"'));
    const { adminUrl } = jsonLines<{ adminUrl: string }>(start.out())[0]!;
    const r = await runCli(['stop'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fast-test-db start pid \d+/);
    expect(await exited(start)).toBe(0);
    expect(jsonLines<{ event: string }>(start.out()).at(-1)!.event).toBe('stopped');
    expect(await answers(adminUrl)).toBe(false);
  }, 120_000);

  test.skipIf(!MARIADBD)(
    'MariaDB: names the connection from the processlist and refuses; --force stops it',
    async () => {
      const started = await runCli(['url', '--engine', 'mysql', '--json'], env);
      expect(started.code).toBe(0);
      const { server } = jsonLines<{ server: { host: string; port: number; user: string; password?: string } }>(started.stdout)[0]!;
      const conn = await mysql.createConnection({
        host: server.host,
        port: server.port,
        user: server.user,
        password: server.password,
        database: 'mysql',
      });
      conn.on('error', () => {});
      const [[{ id }]] = (await conn.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
      try {
        const refused = await runCli(['stop', '--engine', 'mysql'], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('[SERVER_IN_USE]');
        expect(refused.stdout).toContain(`client connection ${id}: database mysql, user ${server.user}`);
        await conn.query('SELECT 1');

        const forced = await runCli(['stop', '--engine', 'mysql', '--force'], env);
        expect(forced.code).toBe(0);
        await expect(conn.query('SELECT 1')).rejects.toThrow();
      } finally {
        conn.destroy();
      }
    },
    120_000,
  );
});

describe('start --port', () => {
  test('with the project server up on another port: PORT_IN_USE naming it and the fix, and no server on the asked port', async () => {
    const started = await runCli(['url', '--json'], env);
    const { server } = jsonLines<{ server: { port: number } }>(started.stdout)[0]!;
    const asked = await freePort();
    const r = await runCli(['start', '--port', String(asked)], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`[PORT_IN_USE] this project's PostgreSQL`);
    expect(r.stderr).toContain(`already running on port ${server.port}`);
    expect(r.stderr).toContain(`cannot serve --port ${asked}`);
    expect(r.stderr).toContain('fast-test-db stop');
    expect(r.stdout).not.toContain('postgres://');
    // Its own port is no conflict: that start joins.
    const same = spawnCli(['start', '--port', String(server.port), '--json'], env);
    await waitForOutput(same, (o) => o.includes('"event":"ready"'));
    same.kill('SIGINT');
    expect(await exited(same)).toBe(0);
    // After stop, the port asked for is served.
    expect((await runCli(['stop'], env)).code).toBe(0);
    const fresh = spawnCli(['start', '--port', String(asked), '--json'], env);
    await waitForOutput(fresh, (o) => o.includes('"event":"ready"'));
    expect(jsonLines<{ server: { port: number } }>(fresh.out())[0]!.server.port).toBe(asked);
    fresh.kill('SIGINT');
    expect(await exited(fresh)).toBe(0);
  }, 120_000);
});
