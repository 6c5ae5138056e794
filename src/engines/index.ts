/** Builds the dialect of an engine, loading that engine's code only when it is used. */
import { resolveOptions } from '../options/resolve.js';
import { loadPeer } from '../util/peer.js';
import type { Engine } from '../types.js';
import type { Dialect } from './dialect.js';
import { ENGINE_LABEL } from './labels.js';

const built = new Map<Engine, Promise<Dialect>>();

/** One dialect per engine and process: the MySQL dialect caches template captures on itself. */
export function dialectFor(engine: Engine): Promise<Dialect> {
  let dialect = built.get(engine);
  if (!dialect) {
    dialect = create(engine);
    built.set(engine, dialect);
  }
  return dialect;
}

/**
 * The driver is loaded with the dialect, so that a missing one is PEER_MISSING before any server
 * starts: every entry builds its dialect first (a MariaDB started for a process without mysql2
 * could never be reached, and kept running).
 */
async function create(engine: Engine): Promise<Dialect> {
  await loadPeer(engine === 'postgres' ? 'pg' : 'mysql2/promise', `${ENGINE_LABEL[engine]} support`);
  if (engine === 'postgres') {
    const { createPostgresDialect } = await import('./postgres/dialect.js');
    return createPostgresDialect({ cloneStrategy: resolveOptions().cloneStrategy });
  }
  const { createMysqlDialect } = await import('./mysql/dialect.js');
  return createMysqlDialect();
}
