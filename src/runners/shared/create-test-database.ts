/**
 * createTestDatabase(), the package's and every adapter's: this process's own database (a server,
 * a template built once, and a clone of it), or, in a worker of a runner's run, one that shares the
 * runner's server (compose.ts): the runner's database for the same schema, one of its own beside
 * it for another. The composing code is loaded only then, so that importing the package stays
 * cheap (it added ~20 ms to every import).
 */
import { openDatabase } from '../../core/database.js';
import { buildContext, type Context } from '../../options/context.js';
import type { TestDatabase, TestDatabaseOptions } from '../../types.js';

export function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  return openEntry(buildContext(options));
}

/** The database of an entry whose context is built: createTestDatabase()'s, and an ORM adapter's. */
export async function openEntry(ctx: Context): Promise<TestDatabase> {
  const pending = ctx.handoff;
  if (!pending) return openDatabase(ctx);
  const { composeWithRunner } = await import('./compose.js');
  return composeWithRunner(ctx, pending);
}
