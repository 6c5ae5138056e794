/** Input a user can get wrong about servers: every mistake is one FastTestDbError with a code and an engine's fix. */
import { afterEach, describe, expect, it } from 'vitest';
import { clean } from '../../src/cli/tools/clean.js';
import { FastTestDbError } from '../../src/errors.js';
import { classifyDriverError } from '../../src/engines/errors.js';
import { DEFAULT_GRACE_MS, resolveOptions } from '../../src/options/resolve.js';
import { readHandedServers } from '../../src/options/handoff.js';
import { resolveServer } from '../../src/server/providers/index.js';
import { parseServerUrl } from '../../src/server/providers/url.js';
import { mysqlServerFlags } from '../../src/engines/mysql/tuning.js';

const saved = { ...process.env };
afterEach(() => {
  for (const k of ['FAST_TEST_DB_SERVER', 'FAST_TEST_DB_GRACE_MS'])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});

describe('a host hidden in the URL parameters', () => {
  for (const url of [
    'postgres://u@localhost:5432/x?host=192.0.2.2',
    'postgres://u@localhost:5432/x?host=10.1.2.3',
    'postgres://u@127.0.0.1/x?host=%2Ftmp,db.example.com',
    'postgres://u@localhost/x?hostaddr=192.0.2.2',
    'mysql://root@localhost:3306/x?socketPath=10.0.0.1',
    'mysql://root@127.0.0.1/x?host=192.0.2.2',
  ])
    it(`is refused like the URL's own host: ${url}`, () => {
      expect(() => parseServerUrl(url, false, {})).toThrow(expect.objectContaining({ code: 'REMOTE_REFUSED' }));
    });

  it('a socket path stays allowed, and allowRemote lets a named host through as the host', () => {
    expect(parseServerUrl('postgres://u@localhost/x?host=/var/run/postgresql', false, {})).toMatchObject({
      socket: '/var/run/postgresql',
      host: 'localhost',
    });
    expect(parseServerUrl('mysql://root@localhost/x?socketPath=/run/mysqld/mysqld.sock', false, {})).toMatchObject({
      socket: '/run/mysqld/mysqld.sock',
    });
    expect(parseServerUrl('postgres://u@localhost/x?host=192.0.2.2', true, {})).toMatchObject({ host: '192.0.2.2', socket: undefined });
  });

  it('is refused by clean <url> too, before any connection', async () => {
    await expect(clean({ olderThanMs: 0, url: 'postgres://u@localhost:5432/x?host=192.0.2.2', servers: false })).rejects.toMatchObject({
      code: 'REMOTE_REFUSED',
    });
  });
});

describe('errors a user can provoke', () => {
  it('FAST_TEST_DB_SERVER that is not a server list', async () => {
    for (const raw of ['not json', '{"engine":"postgres"}', '[1,2]'])
      expect(() => readHandedServers({ FAST_TEST_DB_SERVER: raw })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    process.env.FAST_TEST_DB_SERVER = 'not json';
    const e = await resolveServer({}, 'postgres').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FastTestDbError);
    expect((e as FastTestDbError).fix).toMatch(/unset FAST_TEST_DB_SERVER/);
  });

  it("the same with the driver's roles failing meanwhile: one error, and the roles' failure is not left unhandled", async () => {
    process.env.FAST_TEST_DB_SERVER = 'not json';
    const rolesFailed = Promise.reject(new Error('the roles failed to load'));
    const e = await resolveServer({}, 'postgres', rolesFailed).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'BAD_OPTION', fix: expect.stringMatching(/unset FAST_TEST_DB_SERVER/) });
    // An unhandled rejection would fail this file's run after the test; give it the turn to surface.
    await new Promise((r) => setTimeout(r, 20));
  });

  it('a size that is not one', () => {
    for (const opts of [{ redoLogSize: 'lots' }, { bufferPoolSize: '1T' }]) {
      let e: unknown;
      try {
        mysqlServerFlags({ flavor: 'mariadb', version: '10.11.6', ...opts });
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(FastTestDbError);
      expect(e).toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/redoLogSize|bufferPoolSize/) });
    }
  });

  it("driver errors carry the engine's fix", () => {
    const mysql = classifyDriverError(
      Object.assign(new Error("Access denied for user 'x'@'localhost'"), { code: 'ER_ACCESS_DENIED_ERROR' }),
      'connecting',
    );
    expect(mysql.code).toBe('AUTH_FAILED');
    expect(mysql.fix).not.toMatch(/PG|CREATEDB/);
    expect(mysql.fix).toMatch(/GRANT/);
    const pg = classifyDriverError(Object.assign(new Error('password authentication failed'), { code: '28P01' }), 'connecting');
    expect(pg.fix).toMatch(/PGUSER/);
    expect(pg.fix).not.toMatch(/GRANT/);
    const told = classifyDriverError(Object.assign(new Error('too many'), { code: 'ECONNRESET' }), 'x', 'mysql');
    expect(told.code).toBe('QUERY_FAILED');
  });

  it('a grace period that is not a number of milliseconds', () => {
    expect(resolveOptions({}).graceMs).toBe(DEFAULT_GRACE_MS);
    expect(resolveOptions({ graceMs: 0 }).graceMs).toBe(0);
    process.env.FAST_TEST_DB_GRACE_MS = '2500';
    expect(resolveOptions({}).graceMs).toBe(2500);
    process.env.FAST_TEST_DB_GRACE_MS = '5s';
    expect(() => resolveOptions({}).graceMs).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    expect(() => resolveOptions({ graceMs: -1 }).graceMs).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});
