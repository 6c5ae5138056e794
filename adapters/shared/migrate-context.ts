/**
 * An adapter's migrate needs its second argument: a wrapper that calls it as `migrate(url)` would
 * otherwise fail deep inside with "Cannot read properties of undefined (reading 'connection')".
 */
import { FastTestDbError, type MigrateContext } from '../../src/adapter-kit.js';

export function contextOf(ctx: MigrateContext | undefined, recipe: string): MigrateContext {
  if (ctx?.connection) return ctx;
  throw new FastTestDbError(
    'BAD_OPTION',
    `${recipe}'s migrate was called without its second argument (ctx: { database, server, connection })`,
    `a wrapper must pass both on: migrate: (url, ctx) => source.migrate(url, ctx); to add a step after it, use the seed option instead (docs/templates.md)`,
  );
}
