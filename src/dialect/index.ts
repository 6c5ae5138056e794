/** Builds the dialect of an engine, loading that engine's code only when it is used. */
import { resolveOptions } from '../options.js';
import type { Engine } from '../types.js';
import type { Dialect } from './dialect.js';

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

async function create(engine: Engine): Promise<Dialect> {
  if (engine === 'postgres') {
    const { createPostgresDialect } = await import('./postgres/dialect.js');
    return createPostgresDialect({ cloneStrategy: resolveOptions().cloneStrategy });
  }
  const { createMysqlDialect } = await import('./mysql/dialect.js');
  return createMysqlDialect();
}
