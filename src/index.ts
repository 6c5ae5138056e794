/**
 * fast-test-db: real PostgreSQL and MySQL/MariaDB for integration tests, fast.
 * Importing this module loads no driver and no ORM; each is loaded when a code path needs it.
 */

export { createTestDatabase } from './runners/shared/create-test-database.js';
export { prepareTemplate, startServer } from './core/database.js';
export type { PreparedTemplate } from './core/template.js';
export { resolveNames, workerDatabaseName } from './core/names.js';
export { stopOwnedServer } from './server/registry.js';
export { defineConfig } from './options/config.js';
export { FastTestDbError, isFastTestDbError, type ErrorCode } from './errors.js';
export { quoteIdent, quoteLiteral, quoteQualified, databaseName, type SqlFamily } from './engines/quote.js';
export { detectWorker, detectRun, detectShard, WORKER_ENV_VARS } from './options/workers.js';
export { SERVER_ENV } from './options/handoff.js';
export { VERSION } from './util/version.js';
export type * from './types.js';
