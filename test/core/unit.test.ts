/** Pure functions of the core: quoting, naming, worker detection, fingerprints, URLs, container definitions. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/core/fingerprint.js';
import { databaseName, quoteIdent, quoteLiteral } from '../../src/engines/quote.js';
import { parseServerUrl } from '../../src/server/providers/url.js';
import { containerDefinition as postgresContainerDefinition } from '../../src/engines/postgres/container.js';
import { postgresSettings } from '../../src/engines/postgres/tuning.js';
import { detectRun, detectWorker } from '../../src/options/workers.js';
import { decodeMarker, encodeMarker, newMarker } from '../../src/engines/dialect.js';
import { isFastTestDbError } from '../../src/errors.js';
import { classifyDriverError, driverErrorKind, type DriverErrorKind } from '../../src/engines/errors.js';
import { runnerFile } from '../../src/runners/shared/paths.js';
import { VERSION } from '../../src/util/version.js';

describe('quoting', () => {
  it('doubles the quote character of each family', () => {
    expect(quoteIdent('postgres', 'a"b')).toBe('"a""b"');
    expect(quoteIdent('mysql', 'a`b')).toBe('`a``b`');
    expect(quoteLiteral('postgres', "it's \\ here")).toBe("'it''s \\ here'");
    expect(quoteLiteral('mysql', "it's \\ here")).toBe("'it''s \\\\ here'");
  });
  it('refuses NUL bytes', () => {
    expect(() => quoteIdent('postgres', 'a\0b')).toThrow(/NUL/);
  });
});

describe('database names', () => {
  it('keep plain parts readable', () => {
    expect(databaseName('postgres', ['ftdb', undefined, 'w1'])).toBe('ftdb_w1');
  });
  it('reduce hostile parts and add a hash that keeps them distinct', () => {
    const a = databaseName('postgres', ['ftdb', 'w"; DROP TABLE x; --']);
    const b = databaseName('postgres', ['ftdb', 'w"; DROP TABLE y; --']);
    expect(a).toMatch(/^[a-z0-9_]+$/);
    expect(a).not.toBe(b);
    expect(databaseName('postgres', ['ftdb', 'w"; DROP TABLE x; --'])).toBe(a);
  });
  it('shorten long names deterministically within the engine limit', () => {
    const long = ['ftdb', 'r'.repeat(40), 's'.repeat(40), 'w'.repeat(40)];
    const pg = databaseName('postgres', long);
    expect(Buffer.byteLength(pg)).toBeLessThanOrEqual(63);
    expect(databaseName('postgres', long)).toBe(pg);
    expect(databaseName('mysql', long).length).toBeLessThanOrEqual(64);
    expect(databaseName('postgres', [...long.slice(0, 3), 'v'.repeat(40)])).not.toBe(pg);
  });
});

describe('workers and runs', () => {
  it('take the first runner variable that is set', () => {
    expect(detectWorker({ VITEST_POOL_ID: '3', TEST_TOKEN: '9' })).toEqual({ id: '3', source: 'VITEST_POOL_ID' });
    expect(detectWorker({ JEST_WORKER_ID: '2' }).id).toBe('2');
    expect(detectWorker({}).source).toBe('pid');
  });
  it('derive a run id from CI', () => {
    expect(detectRun({ GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '2' })).toBe('gh77a2');
    expect(detectRun({ FAST_TEST_DB_RUN_ID: 'mine', GITHUB_RUN_ID: '1' })).toBe('mine');
    expect(detectRun({})).toBeUndefined();
  });
});

describe('fingerprint', () => {
  const base = { engine: 'postgres', flavor: 'postgres', serverMajor: 18, unlogged: false, migrates: true };
  it('changes with one byte of a migration file, and only then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-fp-'));
    writeFileSync(join(dir, '001.sql'), 'create table a (id int);');
    const first = await fingerprint({ ...base, migrationFiles: '*.sql' }, dir);
    expect(await fingerprint({ ...base, migrationFiles: '*.sql' }, dir)).toBe(first);
    writeFileSync(join(dir, '001.sql'), 'create table a (id int); ');
    expect(await fingerprint({ ...base, migrationFiles: '*.sql' }, dir)).not.toBe(first);
  });
  it('covers the server major version and the cache key', async () => {
    const a = await fingerprint({ ...base, cacheKey: 'k' });
    expect(await fingerprint({ ...base, cacheKey: 'k', serverMajor: 16 })).not.toBe(a);
    expect(await fingerprint({ ...base, cacheKey: 'k2' })).not.toBe(a);
  });
  it('rejects a glob that matches nothing', async () => {
    await expect(fingerprint({ ...base, migrationFiles: 'nope/**/*.sql' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});

describe('server URLs', () => {
  it('refuse a remote host unless allowed', () => {
    expect(() => parseServerUrl('postgres://u@db.example.com/x', false, {})).toThrow(expect.objectContaining({ code: 'REMOTE_REFUSED' }));
    expect(parseServerUrl('postgres://u@db.example.com/x', true, {}).host).toBe('db.example.com');
  });
  it('read engine, credentials and defaults', () => {
    expect(parseServerUrl('postgresql://me:p%40ss@127.0.0.1:6543/app', false, {})).toMatchObject({
      engine: 'postgres',
      user: 'me',
      password: 'p@ss',
      port: 6543,
      adminDatabase: 'app',
      owned: false,
    });
    expect(parseServerUrl('mariadb://root@localhost', false, {})).toMatchObject({ engine: 'mysql', port: 3306, user: 'root' });
    expect(() => parseServerUrl('sqlite://x', false, {})).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});

describe('markers', () => {
  it('round-trip, and anything else is not ours', () => {
    const m = newMarker('database', { run: 'r1' });
    expect(decodeMarker(encodeMarker(m))).toEqual(m);
    expect(decodeMarker('my production database')).toBeNull();
    expect(decodeMarker('fast-test-db {"tool":"other"}')).toBeNull();
    expect(decodeMarker(null)).toBeNull();
  });
});

describe('tuning in one place', () => {
  it('turns durability off and sizes connections', () => {
    const s = postgresSettings({ maxConnections: 500, major: 18 });
    expect(s).toMatchObject({ fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '500' });
  });
  it('passes the same flags to a container on the command line, with data on tmpfs', () => {
    const def = postgresContainerDefinition({}, 'postgres:16-alpine');
    expect(def.image).toBe('postgres:16-alpine');
    expect(def.command.join(' ')).toContain('-c fsync=off');
    expect(def.command.join(' ')).toContain('-c full_page_writes=off');
    expect(Object.keys(def.tmpfs)).toContain(def.env.PGDATA);
    expect(def.port).toBe(5432);
  });
});

describe('driver errors', () => {
  it('map to one stable code each, with a fix', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code: 'ECONNREFUSED' }, 'UNREACHABLE'],
      [{ code: '28P01' }, 'AUTH_FAILED'],
      [{ code: 'ER_ACCESS_DENIED_ERROR' }, 'AUTH_FAILED'],
      [{ code: '42501' }, 'PERMISSION_DENIED'],
      [{ code: '53300' }, 'TOO_MANY_CONNECTIONS'],
      [{ code: '55006' }, 'DATABASE_IN_USE'],
      [{ code: 'ENOSPC' }, 'TMPFS_FULL'],
      [{ code: 'XX000' }, 'QUERY_FAILED'],
    ];
    for (const [err, code] of cases) {
      const e = classifyDriverError(Object.assign(new Error('driver said no'), err), 'doing a thing');
      expect(e.code).toBe(code);
      expect(e.message).toContain('doing a thing: driver said no');
      expect(e.fix).toBeTruthy();
    }
  });

  it('are classified by meaning, bare or wrapped, the same on both engines', () => {
    const cases: Array<[string, DriverErrorKind]> = [
      ['42P04', 'database-exists'],
      ['ER_DB_CREATE_EXISTS', 'database-exists'],
      ['3D000', 'database-missing'],
      ['ER_BAD_DB_ERROR', 'database-missing'],
      ['55006', 'in-use'],
      ['ER_LOCK_WAIT_TIMEOUT', 'in-use'],
      ['XX000', 'other'],
      ['toString', 'other'],
    ];
    for (const [code, kind] of cases) {
      const driver = Object.assign(new Error('driver said no'), { code });
      expect(driverErrorKind(driver)).toBe(kind);
      expect(driverErrorKind(classifyDriverError(driver, 'doing a thing'))).toBe(kind);
    }
    expect(driverErrorKind(new Error('no code'))).toBe('other');
    expect(driverErrorKind(undefined)).toBe('other');
  });

  it('a file missing from the installed package says to reinstall, not that a server binary is missing', () => {
    let error: unknown;
    try {
      runnerFile('no-such-runner-file', 'no-such/runner-file');
    } catch (e) {
      error = e;
    }
    expect(isFastTestDbError(error, 'PACKAGE_BROKEN'), String(error)).toBe(true);
  });
});

describe('VERSION', () => {
  it("is package.json's version, in the source and in the build's define", async () => {
    const root = join(import.meta.dirname, '../..');
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(version);
    // The build writes the version in from package.json, not from a literal.
    const tsup = readFileSync(join(root, 'tsup.config.ts'), 'utf8');
    expect(tsup).toMatch(/__FAST_TEST_DB_VERSION__: JSON\.stringify\(version\)/);
  });
});
