/**
 * Only the test processes can log in to the servers we start: another local user, made for this
 * test and removed after it, connects over 127.0.0.1 and over the Unix socket without the password
 * and is refused, on the embedded PostgreSQL and MariaDB; the URL we hand out lets us in.
 *
 * Needs root (to make the second user and to run its clients as it) and the command-line clients
 * psql and mariadb (postgresql-client, mariadb-client): the second user cannot be assumed to reach
 * the project's node_modules, so it speaks through the system's own clients.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../src/index.js';
import { engineFor } from '../../src/engines/index.js';
import { withClient } from '../../src/engines/connect.js';
import { handOutDatabase } from '../../src/cli/hand-out.js';
import { passwordFile } from '../../src/server/os/password.js';
import { keeperFiles } from '../../src/server/keeper/files.js';
import { privateDataRoot, removeDataRoot } from '../core/helpers.js';

const asRoot = process.getuid?.() === 0;

/** A client program on PATH or in the usual system directories. */
function client(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin', '/usr/lib/postgresql/15/bin'];
  const found = dirs.map((d) => join(d, name)).find((p) => existsSync(p));
  if (!found) throw new Error(`${name} is not installed: apt-get install postgresql-client mariadb-client`);
  return found;
}

/** Runs `args` as `user` with an empty environment (no PGPASSWORD, no option files of ours). */
function runAs(user: string, args: string[]): { ok: boolean; output: string } {
  const r = spawnSync('runuser', ['-u', user, '--', 'env', '-i', 'PATH=/usr/bin:/bin', 'HOME=/', ...args], {
    cwd: '/',
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

describe.skipIf(!asRoot)('only the test processes can log in (as root: a second local user is made for it)', () => {
  const other = `ftdbsec${randomBytes(3).toString('hex')}`;
  let dataRoot: string;
  let pgDb: TestDatabase;
  let myDb: TestDatabase;

  beforeAll(async () => {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', other]);
    dataRoot = privateDataRoot('logins');
    pgDb = await createTestDatabase({ worker: 'sec1', dataRoot });
    myDb = await createTestDatabase({ engine: 'mysql', worker: 'sec1', dataRoot });
  }, 180_000);

  afterAll(async () => {
    await pgDb?.destroy();
    await myDb?.destroy();
    if (dataRoot) await removeDataRoot(dataRoot);
    spawnSync('userdel', [other]);
  }, 60_000);

  const psql = (conninfo: string) => runAs(other, [client('psql'), '-w', '-X', conninfo, '-c', 'SELECT 1']);
  const mariadb = (...args: string[]) => runAs(other, [client('mariadb'), '--no-defaults', '-u', 'root', ...args, '-e', 'SELECT 1']);

  it('PostgreSQL: another user is refused over 127.0.0.1 and over the socket without the password', () => {
    const { port, socket } = pgDb.server;
    const tcp = psql(`host=127.0.0.1 port=${port} user=postgres dbname=postgres`);
    expect(tcp.ok, tcp.output).toBe(false);
    expect(tcp.output).toMatch(/password/i);
    const local = psql(`host=${socket} port=${port} user=postgres dbname=postgres`);
    expect(local.ok, local.output).toBe(false);
    // The socket's folder is closed to it: it cannot even knock.
    expect(statSync(socket!).mode & 0o777).toBe(0o700);
    // The refusal is the password's doing: with it, the same user over the same address gets in.
    const withPassword = psql(`host=127.0.0.1 port=${port} user=postgres password=${pgDb.server.password} dbname=postgres`);
    expect(withPassword.ok, withPassword.output).toBe(true);
  });

  it('MariaDB: another user is refused over 127.0.0.1 and over the socket without the password', () => {
    const { port, socket } = myDb.server;
    const tcp = mariadb('-h', '127.0.0.1', '-P', String(port));
    expect(tcp.ok, tcp.output).toBe(false);
    expect(tcp.output).toMatch(/Access denied/);
    const local = mariadb(`--socket=${socket}`);
    expect(local.ok, local.output).toBe(false);
    expect(statSync(join(socket!, '..')).mode & 0o777).toBe(0o700);
    const withPassword = mariadb('-h', '127.0.0.1', '-P', String(port), `-p${myDb.server.password}`);
    expect(withPassword.ok, withPassword.output).toBe(true);
  });

  it('the URLs we hand out carry the password, and let the test process in', async () => {
    for (const db of [pgDb, myDb]) {
      expect(db.server.password).toMatch(/^[0-9a-f]{32}$/);
      expect(new URL(db.url).password).toBe(db.server.password);
    }
    const c = new pg.Client({ connectionString: pgDb.url });
    await c.connect();
    expect((await c.query('SELECT current_database() AS d')).rows[0].d).toBe(pgDb.name);
    await c.end();
    const m = await mysql.createConnection(myDb.url);
    expect((await m.query('SELECT DATABASE() AS d'))[0]).toEqual([{ d: myDb.name }]);
    await m.end();
  });

  it('each server has its own password, kept in files only our uid may read', () => {
    expect(pgDb.server.password).not.toBe(myDb.server.password);
    for (const db of [pgDb, myDb]) {
      const file = passwordFile(db.server.stateDir!);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(file).uid).toBe(0);
      expect(statSync(keeperFiles(db.server.stateDir!).state).mode & 0o777).toBe(0o600);
    }
  });

  it('a login made for an app without a password gets one: without it, nobody gets in', async () => {
    for (const db of [pgDb, myDb]) {
      const roles = await engineFor(db.server.engine).load();
      const handed = await withClient(roles.connector, db.server, (admin) =>
        handOutDatabase(roles, admin, db.server, { user: 'applogin', database: 'appdb' }),
      );
      const url = new URL(handed.url);
      expect(url.password).toMatch(/^[0-9a-f]{32}$/);
      if (db.server.engine === 'postgres') {
        const bare = psql(`host=127.0.0.1 port=${db.server.port} user=applogin dbname=appdb`);
        expect(bare.ok, bare.output).toBe(false);
        const c = new pg.Client({ connectionString: handed.url });
        await c.connect();
        await c.end();
      } else {
        const bare = runAs(other, [
          client('mariadb'),
          '--no-defaults',
          '-u',
          'applogin',
          '-h',
          '127.0.0.1',
          '-P',
          String(db.server.port),
          '-e',
          'SELECT 1',
        ]);
        expect(bare.ok, bare.output).toBe(false);
        const m = await mysql.createConnection(handed.url);
        await m.end();
      }
    }
  });
});
