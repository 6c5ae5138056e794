/**
 * Where our servers live: the data root (tmpfs when the machine has one), this user's folder in
 * it, and one folder per server, named after its engine and what makes it differ from the others.
 */
import { createHash } from 'node:crypto';
import { existsSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ENGINES } from '../../engines/index.js';
import type { ResolvedOptions } from '../../options/resolve.js';
import type { EngineName } from '../../types.js';
import { logger } from '../../util/log.js';
import { defaultDataRoot } from '../os/platform.js';
import type { ServerContext } from '../provider.js';

const log = logger('server');

/** What the servers' folders are found from: the data root the entry resolved (the option, or FAST_TEST_DB_DATA_ROOT). */
export interface RootSettings {
  readonly resolved: Pick<ResolvedOptions, 'dataRoot'>;
}

/** Where owned servers live: tmpfs when the machine has one. */
export function dataRoot({ resolved }: RootSettings): { root: string; tmpfs: boolean } {
  const chosen = resolved.dataRoot;
  if (chosen) return { root: resolve(chosen), tmpfs: chosen.startsWith('/dev/shm') };
  const chosenByPlatform = defaultDataRoot(process.platform, { tmpdir: tmpdir(), hasDevShm: existsSync('/dev/shm') });
  if (!chosenByPlatform.tmpfs) log('no /dev/shm on this machine: data goes to %s, which is probably a disk', chosenByPlatform.root);
  return chosenByPlatform;
}

/** The directory holding every server of this user, for `clean` and `doctor` too. */
export function serversRoot(settings: RootSettings): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return join(dataRoot(settings).root, `fast-test-db-${uid}`);
}

/** A server's folder in the servers root: the request's engine, a hash of the project and the request's identity. */
export function serverDir(req: { engine: string; identity: unknown[]; context: Pick<ServerContext, 'resolved'> }): string {
  const key = createHash('sha256')
    .update(JSON.stringify([process.cwd(), ...req.identity]))
    .digest('hex')
    .slice(0, 10);
  return join(serversRoot(req.context), `${req.engine}-${key}`);
}

/** The engine whose server a folder of the servers root holds; undefined for anything else there. */
export function engineOfServerDir(name: string): EngineName | undefined {
  const engine = /^([a-z]+)-[0-9a-f]+$/.exec(name)?.[1];
  return engine !== undefined && Object.hasOwn(ENGINES, engine) ? (engine as EngineName) : undefined;
}

/** rmdir of a directory that may have been taken again meanwhile: only empty ones go. */
export function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
    rmdirSync(dirname(dir)); // the user's folder too, once no server is left in it
  } catch {
    /* not empty: someone uses it */
  }
}
