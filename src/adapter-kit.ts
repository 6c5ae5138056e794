/**
 * What the ORM adapters (adapters/*) take from the core, and nothing else: they import this one
 * module, so that the core can move its files without touching them, and a reader sees in one
 * place what an adapter depends on.
 */
import { buildContext, type Context } from './options/context.js';
import { readHandoff } from './options/handoff.js';
import { logger } from './util/log.js';
import { messageOf } from './errors.js';
import { pairCpu, type CpuPairing, type PoolEvents, type SessionSource } from './runners/shared/cpu-pairing.js';
import type { ServerInfo, TestDatabase, TestDatabaseOptions } from './types.js';

export { FastTestDbError, driverSaid, messageOf } from './errors.js';
export { classifyDriverError } from './engines/errors.js';
// What differs between engines (insert spelling, quoting, URL defaults), asked instead of branching on the name.
export { engineFor, engineNamed, engineOfFlavor, flavorOfScheme } from './engines/index.js';
export { logger } from './util/log.js';
export { loadPeer } from './util/peer.js';
export { noteInstalled, noteUntested } from './util/tested.js';
export { quoteIdent, quoteQualified, type SqlFamily } from './engines/quote.js';
export { createTestDatabase, openEntry } from './runners/shared/create-test-database.js';
export { withOptions } from './options/context.js';
export type { PoolEvents } from './runners/shared/cpu-pairing.js';
export type {
  ConnectionOptions,
  EngineName,
  Flavor,
  Migrate,
  MigrateContext,
  MigrateFn,
  ServerInfo,
  TemplateSource,
  TestDatabase,
  TestDatabaseOptions,
} from './types.js';

/**
 * An adapter's own entry (typeormTestDb, prismaTestDb, drizzleTestDb) resolves its options before it
 * loads the ORM: a bad option fails before the ORM's work, and the ORM's untested-version line
 * (util/tested.ts), which waits for the entry's quiet, comes out also when that work fails, the
 * failure the line is for. The context it returns is the entry's only one: the adapter opens its
 * database with it (openEntry, with the options the ORM adds through withOptions) and pairs with it.
 */
export function beginEntry(options: TestDatabaseOptions): Context {
  return buildContext(options);
}

/** The server a runner integration of this run started or joined, if a runner wired this process. */
export function runnerServer(): ServerInfo | undefined {
  return readHandoff()?.server;
}

export interface OrmHandle<T> {
  orm: T;
  /** Closes the ORM's connections, then the database's own; once. The database stays. */
  close(): Promise<void>;
  /** close(), then the database disposed: dropped when it is ours, left to the runner when it is a runner's. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** What ormHandle needs to pair the worker with its sessions (src/cpu-pairing.ts). */
export interface Pairing<T> {
  /** The entry's context (beginEntry). */
  entry: Context;
  /** The ORM's pool, whose new connections are paired as they open. */
  pool?: (orm: T) => PoolEvents | undefined;
}

/**
 * The life of an adapter's handle: `open` makes the ORM's connection to `database` (which is given
 * back if that fails), and `closeOrm` ends it. Every adapter's close() and dispose come from here,
 * and so does CPU pairing: after `open`, the worker's thread and the ORM's sessions share a CPU.
 */
export async function ormHandle<T>(
  database: TestDatabase,
  open: () => Promise<T>,
  closeOrm: (orm: T) => Promise<void>,
  pairing: Pairing<T>,
): Promise<OrmHandle<T>> {
  let orm: T;
  try {
    orm = await open();
  } catch (e) {
    await Promise.resolve(database[Symbol.asyncDispose]()).catch(() => undefined);
    throw e;
  }
  const paired = await pairOrm(database, orm, pairing);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await paired?.end();
    await closeOrm(orm);
    await database.close();
  };
  return {
    orm,
    close,
    async [Symbol.asyncDispose]() {
      await close();
      await database[Symbol.asyncDispose]();
    },
  };
}

/** Pairing is a speed-up only: whatever stops it leaves the handle as it would be without it. */
async function pairOrm<T>(database: TestDatabase, orm: T, pairing: Pairing<T>): Promise<CpuPairing | undefined> {
  if (typeof (database as Partial<SessionSource>).sessionTasks !== 'function') return undefined;
  try {
    const paired = await pairCpu(database.server, database as TestDatabase & SessionSource, pairing.entry);
    paired?.follow(pairing.pool?.(orm));
    await paired?.refresh();
    return paired;
  } catch (e) {
    logger('cpu')('no CPU pairing: %s', messageOf(e));
    return undefined;
  }
}
