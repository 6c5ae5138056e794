import type { Engine } from '../types.js';
import type { Dialect } from './dialect.js';

/** Loads one engine's code only when it is used. */
export async function dialectFor(engine: Engine): Promise<Dialect> {
  if (engine === 'postgres') return (await import('./postgres.js')).postgresDialect;
  return (await import('./mysql.js')).mysqlDialect;
}
