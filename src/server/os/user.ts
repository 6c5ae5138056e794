/**
 * PostgreSQL refuses to run as root, and running a test server as root is poor practice anyway:
 * when we are root, servers run as an unprivileged account (FAST_TEST_DB_RUN_AS, else nobody).
 * That account must be able to reach what the server needs: its data, and its own binaries.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { FastTestDbError } from '../../errors.js';
import { needsUnprivilegedUser } from './platform.js';

export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/** The account to run servers as when we are root (`runAs`: FAST_TEST_DB_RUN_AS, else nobody); undefined when we are not. */
export function unprivilegedUser(runAs: string): ServerUser | undefined {
  if (!needsUnprivilegedUser(process.platform, process.getuid?.())) return undefined;
  const wanted = runAs;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[0] === wanted);
  if (!line)
    throw new FastTestDbError(
      'SERVER_START_FAILED',
      `running as root, and the account "${wanted}" to run the server as does not exist`,
      'create it, or set FAST_TEST_DB_RUN_AS to an unprivileged account',
    );
  const [, , uid, gid] = line.split(':');
  return { name: wanted, uid: Number(uid), gid: Number(gid) };
}

/** True when `user` may search (enter) a directory with this mode and owner: the owner, group or other x bit. */
export function maySearch(st: { mode: number; uid: number; gid: number }, user: Pick<ServerUser, 'uid' | 'gid'>): boolean {
  if (st.uid === user.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === user.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/** `path` with its links resolved, as far down as it exists (the rest may not be made yet). */
function realPath(path: string): string {
  const abs = resolve(path);
  if (abs === dirname(abs)) return abs;
  try {
    return realpathSync(abs);
  } catch {
    return join(realPath(dirname(abs)), basename(abs));
  }
}

/**
 * The first directory on the way down to `path` that `user` cannot enter, or undefined if none. The
 * way the kernel takes counts too: a project's node_modules linked into a 0700 folder is reached
 * through that folder.
 */
export function firstBlockedDir(path: string, user: Pick<ServerUser, 'uid' | 'gid'>): string | undefined {
  const chain = new Set<string>();
  for (const p of [resolve(path), realPath(path)])
    for (let d = dirname(p); ; d = dirname(d)) {
      chain.add(d);
      if (d === dirname(d)) break;
    }
  return [...chain].sort((a, b) => a.length - b.length).find((d) => !maySearch(statSync(d), user));
}

/** The unprivileged server must be able to walk down to its data directory. */
export function assertReachable(dir: string, user: ServerUser): void {
  const blocked = firstBlockedDir(dir, user);
  if (blocked)
    throw new FastTestDbError(
      'SERVER_START_FAILED',
      `the server runs as "${user.name}" (we are root), and that user cannot enter ${blocked}`,
      `chmod o+x ${blocked}, or choose another dataRoot (FAST_TEST_DB_DATA_ROOT)`,
    );
}
