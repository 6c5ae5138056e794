/**
 * fast-test-db: real PostgreSQL and MySQL/MariaDB for integration tests, fast.
 * Importing this module loads no driver and no ORM; each is loaded when a code path needs it.
 */
// Under a runner integration of this run, it composes with it (runners/compose.ts); elsewhere it is the core's own.
export { adapterDatabase as createTestDatabase } from './runners/compose.js';
export {
  prepareTemplate,
  startServer,
  resolveNames,
  workerDatabaseName,
  type PreparedTemplate,
} from './test-database.js';
export { stopOwnedServer } from './server/registry.js';
export { defineConfig, type FastTestDbConfig, type TemplateSource } from './config.js';
export { FastTestDbError, isFastTestDbError, type ErrorCode } from './errors.js';
export { quoteIdent, quoteLiteral, quoteQualified, databaseName, type SqlFamily } from './quote.js';
export { detectWorker, detectRun, detectShard, WORKER_ENV_VARS } from './workers.js';
export { SERVER_ENV } from './server/resolve.js';
export { VERSION } from './version.js';
export type * from './types.js';
