/**
 * fast-test-db: real PostgreSQL and MySQL/MariaDB for integration tests, fast.
 * Importing this module loads no driver and no ORM; each is loaded when a code path needs it.
 */

import { readHandoff } from './options/handoff.js';
import { openDatabase } from './core/database.js';
import type { TestDatabase, TestDatabaseOptions } from './types.js';

/**
 * This worker's own database: a server, a template built once, and a clone of it. Under a runner
 * integration of this run it shares the runner's server (runners/compose.ts): the runner's database
 * for the same schema, one of its own beside it for another. The composing code is loaded only
 * then, so that importing the package stays cheap (it added ~20 ms to every import).
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (!readHandoff(process.env)) return openDatabase(options);
  const { adapterDatabase } = await import('./runners/shared/compose.js');
  return adapterDatabase(options);
}

export { prepareTemplate, startServer } from './core/database.js';
export type { PreparedTemplate } from './core/template.js';
export { resolveNames, workerDatabaseName } from './core/names.js';
export { stopOwnedServer } from './server/registry.js';
export { defineConfig, type FastTestDbConfig, type TemplateSource } from './options/config.js';
export { FastTestDbError, isFastTestDbError, type ErrorCode } from './errors.js';
export { quoteIdent, quoteLiteral, quoteQualified, databaseName, type SqlFamily } from './engines/quote.js';
export { detectWorker, detectRun, detectShard, WORKER_ENV_VARS } from './options/workers.js';
export { SERVER_ENV } from './options/handoff.js';
export { VERSION } from './util/version.js';
export type * from './types.js';
