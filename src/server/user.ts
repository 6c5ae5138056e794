/**
 * PostgreSQL refuses to run as root, and running a test server as root is poor practice anyway:
 * when we are root, servers run as an unprivileged account (FAST_TEST_DB_RUN_AS, else nobody).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { FastTestDbError } from '../errors.js';

export function unprivilegedUser(): { name: string; uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const wanted = process.env.FAST_TEST_DB_RUN_AS ?? 'nobody';
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[0] === wanted);
  if (!line)
    throw new FastTestDbError('SERVER_START_FAILED', `running as root, and the account "${wanted}" to run the server as does not exist`, 'create it, or set FAST_TEST_DB_RUN_AS to an unprivileged account');
  const [, , uid, gid] = line.split(':');
  return { name: wanted, uid: Number(uid), gid: Number(gid) };
}

/** The unprivileged server must be able to walk down to its data directory. */
export function assertReachable(dir: string, user: { name: string }): void {
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0)
      throw new FastTestDbError('SERVER_START_FAILED', `the server runs as "${user.name}" (we are root), and that user cannot enter ${d}`, `chmod o+x ${d}, or choose another dataRoot (FAST_TEST_DB_DATA_ROOT)`);
  }
}
