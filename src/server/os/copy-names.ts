/**
 * The names of the copies written beside our servers and in the cache, made and recognised here
 * only. Loaded by the keeper too: names only.
 */
import { join } from 'node:path';

/**
 * On its way to its copy, on the servers' tmpfs while a process of the keeper copies it there: a
 * stopped server's data directory (to the cache), or ('initdb') initdb's output, copied before the
 * server started (to the servers root).
 */
export const warmSaveDir = (serversRoot: string, keeperPid: number, what?: 'initdb') =>
  join(serversRoot, `warm-save-${keeperPid}${what ? `-${what}` : ''}`);

/** A copy being written next to its final path by process `writerPid`, renamed into place once complete. */
export const partialPath = (to: string, writerPid: number) => `${to}.partial-${writerPid}`;
/** A copy taken out of use by process `pid`, renamed aside before it is removed (warm-cache.ts retireCopy). */
export const retiredPath = (path: string, pid: number) => `${path}.old-${pid}`;

/** Binaries the server's account can reach, when it cannot enter the project (embedded-postgres.ts). */
export const binariesCopyDir = (serversRoot: string, major: number, key: string) => join(serversRoot, `bin-postgres-${major}-${key}`);

/**
 * PostgreSQL's initdb output (`key` of initdb's inputs alone, embedded-copies.ts), once per user and
 * machine: in the servers root, a folder only this user may write that every project of theirs shares.
 */
export const initdbCopyPath = (serversRoot: string, major: number, key: string) => join(serversRoot, `initdb-postgres-${major}-${key}`);

/** In the servers root: the staged data directory (the keeper's pid), a binaries copy, or one being made (its writer's pid). */
export const WARM_SAVE_NAME = /^warm-save-(\d+)(?:-initdb)?$/;
export const BINARIES_COPY_NAME = /^bin-postgres-\d+-[0-9a-f]+$/;
export const BINARIES_PARTIAL_NAME = /^bin-postgres-\d+-[0-9a-f]+\.partial-(\d+)$/;
/** In the servers root: initdb's output, or a copy of it being written or taken out of use (that process's pid). */
export const INITDB_COPY_NAME = /^initdb-postgres-\d+-[0-9a-f]+$/;
export const INITDB_PARTIAL_NAME = /^initdb-postgres-\d+-[0-9a-f]+\.(?:partial|old)-(\d+)$/;
/**
 * In the cache dir: a stopped server's data directory (`key` of its binaries, settings and our
 * version), `<engine>-<major>-<key>`, which each engine's embedded start keys (warmCopyKey in warm-cache.ts).
 */
export const warmCopyPath = (cacheRoot: string, engine: string, major: number, key: string) => join(cacheRoot, `${engine}-${major}-${key}`);
export const WARM_COPY_NAME = /^[a-z]+-\d+-[0-9a-f]+$/;
/** What a warm copy is of (the first word of its name, its engine): copies are counted per kind. */
export const warmCopyKind = (name: string) => /^([a-z]+)-/.exec(name)?.[1];
/**
 * In the cache dir: a warm copy being written, or one taken out of use; `-initdb`: initdb's output,
 * which versions before the copy moved to the servers root wrote there.
 */
export const CACHE_PARTIAL_NAME = /^[a-z]+-\d+-[0-9a-f]+(?:-initdb)?\.(?:partial|old)-(\d+)$/;
