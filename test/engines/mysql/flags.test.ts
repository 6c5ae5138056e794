/** Tuning flags per flavor and version, the container definition, the pure helpers of the MySQL engine, and how its binary is found. */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cloneStatements, dependencyOrder, stripDefiner, type Capture } from '../../../src/engines/mysql/capture.js';
import { containerDefinition as mysqlContainerDefinition, imageFlavor } from '../../../src/engines/mysql/container.js';
import { embeddedServer, parseVersionLine } from '../../../src/engines/mysql/embedded.js';
import { isFastTestDbError } from '../../../src/errors.js';
import { engineFor } from '../../../src/engines/index.js';
import type { EmbeddedSettings } from '../../../src/engines/engine.js';
import { mysqlServerFlags, parseSize } from '../../../src/engines/mysql/tuning.js';

const flagNames = (flags: string[]) => flags.map((f) => f.split('=')[0]);

describe('mysqlServerFlags', () => {
  it('MySQL 8.0 before 8.0.30: two redo files of half the size, no redo_log_capacity', () => {
    const f = mysqlServerFlags({ flavor: 'mysql', version: '8.0.28', redoLogSize: '512M' });
    expect(f).toContain('--innodb-log-file-size=268435456');
    expect(f).toContain('--innodb-log-files-in-group=2');
    expect(flagNames(f)).not.toContain('--innodb-redo-log-capacity');
  });

  it.each(['8.0.30', '8.0.36', '8.4.3', '9.1.0'])(
    'MySQL %s: binary log and doublewrite off, redo log sized with innodb_redo_log_capacity, X protocol off',
    (version) => {
      const f = mysqlServerFlags({ flavor: 'mysql', version, bufferPoolSize: '512M', redoLogSize: '512M' });
      for (const flag of [
        '--skip-log-bin',
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-doublewrite=OFF',
        '--innodb-buffer-pool-size=512M',
        '--innodb-redo-log-capacity=512M',
        '--innodb-io-capacity=10000',
        '--innodb-io-capacity-max=20000',
        '--innodb-flush-neighbors=0',
        '--mysqlx=OFF',
      ])
        expect(f).toContain(flag);
      expect(flagNames(f)).not.toContain('--innodb-log-file-size');
      expect(flagNames(f)).not.toContain('--innodb-log-files-in-group');
      expect(flagNames(f)).not.toContain('--character-set-server');
    },
  );

  it.each(['10.11.19', '11.4.5', '11.8.2'])('MariaDB %s: innodb_log_file_size, never MySQL-only flags', (version) => {
    const f = mysqlServerFlags({ flavor: 'mariadb', version, redoLogSize: '64M', maxConnections: 50 });
    expect(f).toContain('--innodb-log-file-size=64M');
    expect(f).toContain('--innodb-doublewrite=OFF');
    expect(f).toContain('--max-connections=50');
    expect(f).toContain('--character-set-server=utf8mb4');
    for (const mysqlOnly of ['--innodb-redo-log-capacity', '--innodb-log-files-in-group', '--mysqlx', '--performance-schema'])
      expect(flagNames(f)).not.toContain(mysqlOnly);
  });

  it('never writes a flag twice', () => {
    for (const [flavor, version] of [
      ['mysql', '8.0.20'],
      ['mysql', '8.4.0'],
      ['mariadb', '10.11.0'],
    ] as const) {
      const names = flagNames(mysqlServerFlags({ flavor, version }));
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('parses sizes', () => {
    expect(parseSize('256M')).toBe(256 * 2 ** 20);
    expect(parseSize('1G')).toBe(2 ** 30);
    expect(() => parseSize('lots')).toThrow(/not a size/);
  });

  // An unknown option makes mysqld refuse to start: ask the real binary to parse our flags.
  const bin = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].find((b) => existsSync(b));
  it.skipIf(!bin)('the installed server accepts every flag we pass it', () => {
    const line = execFileSync(bin!, ['--no-defaults', '--version'], { encoding: 'utf8' });
    const v = parseVersionLine(line)!;
    const flags = mysqlServerFlags({ flavor: v.flavor, version: v.version });
    const ok = spawnSync(bin!, ['--no-defaults', ...flags, '--verbose', '--help'], { encoding: 'utf8' });
    expect(ok.stderr).not.toMatch(/unknown (option|variable)/i);
    expect(ok.status).toBe(0);
    const bad = spawnSync(bin!, ['--no-defaults', '--no-such-flag-here', '--verbose', '--help'], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0); // the check above can fail
  });
});

describe('version lines and images', () => {
  it('reads flavor and version from --version', () => {
    expect(parseVersionLine('/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)')).toEqual({
      flavor: 'mariadb',
      version: '10.11.19',
      fullVersion: '10.11.19-MariaDB-0+deb12u1',
    });
    expect(parseVersionLine('/usr/sbin/mysqld  Ver 8.4.3 for Linux on x86_64 (MySQL Community Server - GPL)')).toMatchObject({
      flavor: 'mysql',
      version: '8.4.3',
    });
  });

  it('reads flavor and version from an image reference', () => {
    expect(imageFlavor('mariadb:10.11')).toEqual({ flavor: 'mariadb', version: '10.11.99' });
    expect(imageFlavor('mysql:8.0.28')).toEqual({ flavor: 'mysql', version: '8.0.28' });
    expect(imageFlavor('registry.example:5000/team/mysql:8.4')).toEqual({ flavor: 'mysql', version: '8.4.99' });
    expect(imageFlavor('mysql')).toMatchObject({ flavor: 'mysql' });
  });

  it('container definition: data on tmpfs, tuning flags as the command, empty root password', () => {
    const def = mysqlContainerDefinition({ redoLogSize: '128M' }, 'mysql:8.4');
    expect(def.image).toBe('mysql:8.4');
    expect(def.port).toBe(3306);
    expect(Object.keys(def.tmpfs)).toEqual(['/var/lib/mysql']);
    expect(def.command).toContain('--innodb-redo-log-capacity=128M');
    expect(def.command).toContain('--skip-log-bin');
    expect(def.env.MYSQL_ALLOW_EMPTY_PASSWORD).toBe('yes');
    const maria = mysqlContainerDefinition({}, 'mariadb:11.4');
    expect(maria.command.some((c) => c.startsWith('--innodb-log-file-size='))).toBe(true);
    expect(maria.command.some((c) => c.startsWith('--innodb-redo-log-capacity'))).toBe(false);
    expect(maria.env.MARIADB_ALLOW_EMPTY_ROOT_PASSWORD).toBe('1');
    expect(maria.server.flavor).toBe('mariadb');
  });
});

describe('capture helpers', () => {
  it('strips DEFINER clauses of views, routines, triggers and events', () => {
    expect(stripDefiner('CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`127.0.0.1` SQL SECURITY DEFINER VIEW `v` AS select 1')).toBe(
      'CREATE ALGORITHM=UNDEFINED SQL SECURITY DEFINER VIEW `v` AS select 1',
    );
    expect(stripDefiner('CREATE DEFINER=`we``ird`@`%` PROCEDURE `p`() BEGIN END')).toBe('CREATE PROCEDURE `p`() BEGIN END');
    expect(stripDefiner('CREATE DEFINER=`role_only` TRIGGER t AFTER INSERT ON x FOR EACH ROW SET @a = 1')).toBe(
      'CREATE TRIGGER t AFTER INSERT ON x FOR EACH ROW SET @a = 1',
    );
    expect(stripDefiner('CREATE TABLE `definer` (a int)')).toBe('CREATE TABLE `definer` (a int)');
  });

  it('orders by dependency and survives cycles', () => {
    const deps: Record<string, string[]> = { a: ['b'], b: ['c'], c: [], x: ['y'], y: ['x'] };
    const order = dependencyOrder(['a', 'b', 'c', 'x', 'y'], (n) => deps[n] ?? []);
    expect(order.indexOf('c')).toBeLessThan(order.indexOf('b'));
    expect(order.indexOf('b')).toBeLessThan(order.indexOf('a'));
    expect(order).toHaveLength(5);
  });

  it('quotes a hostile target name everywhere in the clone script', () => {
    const cap: Capture = {
      version: 1,
      charset: 'utf8mb4',
      collation: 'utf8mb4_general_ci',
      tables: [{ name: 'k', create: 'CREATE TABLE `k` (id int)', seedColumns: ['id'], autoIncrement: null }],
      views: [],
      routines: [],
      triggers: [],
      events: [],
    };
    const target = 'w`; DROP DATABASE mysql; --';
    const script = cloneStatements(cap, 'tpl', target, { tool: 'fast-test-db', kind: 'database', created: 'x' }).join(';\n');
    expect(script).toContain('CREATE DATABASE `w``; DROP DATABASE mysql; --`');
    expect(script).not.toMatch(/[^`]`; DROP/);
    expect(script).toContain('INSERT INTO `k` (`id`) SELECT `id` FROM `tpl`.`k`');
  });
});

describe('the embedded server binary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ftdb-mysqld-'));
  const runs = join(dir, 'runs.log');
  // A stand-in first on PATH that notes each time it is run, and answers --version as MariaDB does.
  writeFileSync(
    join(dir, 'mariadbd'),
    `#!/bin/sh\necho run >> '${runs}'\necho 'mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64'\n`,
  );
  chmodSync(join(dir, 'mariadbd'), 0o755);
  const settings = (binDir?: string) =>
    ({
      options: {},
      resolved: { binDir, locale: undefined, runAs: 'nobody', initdbCache: true, cacheDataDir: 'built' },
      env: { PATH: dir },
      cacheRoot: join(dir, 'cache'),
    }) satisfies EmbeddedSettings;
  const timesRun = () => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').filter(Boolean).length : 0);

  it('is not run to describe a server to join; reading its label runs it once', () => {
    try {
      const server = embeddedServer(settings(), engineFor('mysql'));
      expect(server.identity).toBeDefined();
      expect(timesRun()).toBe(0);
      expect(server.label).toBe('MariaDB 10.11.19');
      expect(timesRun()).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('missing from binDir fails at once, with the fix', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ftdb-no-mysqld-'));
    try {
      let err: unknown;
      try {
        embeddedServer(settings(empty), engineFor('mysql'));
      } catch (e) {
        err = e;
      }
      expect(isFastTestDbError(err, 'BINARY_NOT_FOUND'), String(err)).toBe(true);
      expect(String((err as Error).message)).toContain(empty);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
