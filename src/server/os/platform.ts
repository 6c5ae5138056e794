/**
 * Every decision that depends on the operating system, each one function with the platform as a
 * parameter, so that all three (linux, darwin, win32) are unit-tested on any machine. Callers pass
 * `process.platform`; nothing here looks at the running machine except through its arguments.
 * docs/platforms.md says what is tested where.
 */
import { createHash } from 'node:crypto';
import { posix, win32 } from 'node:path';

export type Platform = NodeJS.Platform;

function pathOf(platform: Platform) {
  return platform === 'win32' ? win32 : posix;
}

/** A program's file name: `postgres.exe` on Windows. */
export function executableName(platform: Platform, name: string): string {
  return platform === 'win32' ? `${name}.exe` : name;
}

/**
 * Where owned servers keep their data when the user chose nothing.
 * - linux: /dev/shm (memory) when present, else the temp dir.
 * - darwin: no /dev/shm; `/tmp` rather than $TMPDIR, whose /var/folders/… path is ~50 bytes long
 *   and would push socket paths past macOS's 103-byte limit.
 * - win32: the temp dir (no tmpfs; PostgreSQL listens on TCP only there).
 */
export function defaultDataRoot(platform: Platform, machine: { tmpdir: string; hasDevShm: boolean }): { root: string; tmpfs: boolean } {
  if (platform === 'linux' && machine.hasDevShm) return { root: '/dev/shm', tmpfs: true };
  if (platform === 'darwin') return { root: '/tmp', tmpfs: false };
  return { root: machine.tmpdir, tmpfs: false };
}

/**
 * Longest path a Unix socket may have: sun_path is 108 bytes on Linux and 104 on macOS and the
 * BSDs, one of which is the terminating NUL. undefined: no Unix sockets are used (Windows).
 */
export function socketPathLimit(platform: Platform): number | undefined {
  if (platform === 'win32') return undefined;
  return platform === 'linux' ? 107 : 103;
}

/**
 * Where a server's Unix socket goes, short by construction: inside the server's own directory when
 * the longest possible socket path fits the platform's limit, else in a short directory named
 * after a hash of the server directory under `/tmp` (which exists, is short and is world-enterable
 * on every Unix). undefined on Windows: PostgreSQL is reached over TCP there.
 */
export function socketDirFor(platform: Platform, serverDir: string, socketFile: string): string | undefined {
  const limit = socketPathLimit(platform);
  if (limit === undefined) return undefined;
  const p = pathOf(platform);
  const inside = p.join(serverDir, 'socket');
  if (Buffer.byteLength(p.join(inside, socketFile)) <= limit) return inside;
  return `/tmp/ftdb-${createHash('sha256').update(serverDir).digest('hex').slice(0, 12)}`;
}

/**
 * How to ask a server to stop quickly and cleanly. On Unix, the engine's signal for that (`fast`:
 * PostgreSQL's "fast" shutdown is SIGINT; mysqld's is SIGTERM). Windows has no signals: Node's
 * kill() terminates the process at once, which is acceptable for a throwaway server (its data is
 * removed anyway) but is not a clean shutdown, so no data-directory snapshot is taken there.
 */
export function stopMethod(platform: Platform, fast: NodeJS.Signals): { signal: NodeJS.Signals; clean: boolean } {
  if (platform === 'win32') return { signal: 'SIGTERM', clean: false };
  return { signal: fast, clean: true };
}

/**
 * Whether a pid is alive, from the outcome of `process.kill(pid, 0)`: no error, or EPERM (it exists
 * but belongs to another user, e.g. a server running as `nobody`). Windows never answers EPERM
 * and reuses pids quickly, so only "no error" counts there.
 */
export function pidAliveFromProbe(platform: Platform, error: { code?: string } | undefined): boolean {
  if (!error) return true;
  return platform !== 'win32' && error.code === 'EPERM';
}

/**
 * The account the server must run as: PostgreSQL refuses to run as root, so a root process on
 * Linux or macOS runs it as an unprivileged account. Windows has no uid 0 (an administrator is
 * refused by postgres.exe too, which only pg_ctl's restricted token gets around: not handled).
 */
export function needsUnprivilegedUser(platform: Platform, uid: number | undefined): boolean {
  return platform !== 'win32' && uid === 0;
}

/** Whether a task's CPUs can be read from /proc and set with `taskset` (cpu-pairing.ts): Linux only. */
export function canPinCpus(platform: Platform): boolean {
  return platform === 'linux';
}

/** Whether /proc/<pid>/cmdline tells which directory a process serves (Linux only). */
export function hasProcCmdline(platform: Platform): boolean {
  return platform === 'linux';
}

/** The environment variable through which the dynamic loader finds extra libraries. */
export function libraryPathVariable(platform: Platform): string {
  if (platform === 'darwin') return 'DYLD_LIBRARY_PATH';
  if (platform === 'win32') return 'PATH';
  return 'LD_LIBRARY_PATH';
}
