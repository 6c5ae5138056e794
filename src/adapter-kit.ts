/**
 * What the ORM adapters (adapters/*) take from the core, and nothing else: they import this one
 * module, so that the core can move its files without touching them, and a reader sees in one
 * place what an adapter depends on.
 */
import { readHandoff } from './runners/handoff.js';
import type { ConnectionOptions, ServerInfo, TestDatabase } from './types.js';

export { FastTestDbError, classifyDriverError, messageOf } from './errors.js';
export { logger } from './log.js';
export { loadPeer } from './peer.js';
export { quoteIdent, quoteQualified, type SqlFamily } from './quote.js';
export { adapterDatabase } from './runners/compose.js';
export type { TemplateSource } from './config.js';
export type { ConnectionOptions, Engine, Flavor, MigrateFn, ServerInfo, TestDatabase, TestDatabaseOptions } from './types.js';

/** The server a runner integration of this run started or joined, if a runner wired this process. */
export function runnerServer(): ServerInfo | undefined {
  return readHandoff()?.server;
}

/**
 * What an adapter's own driver connects to: this database over the server's Unix socket when it is
 * a PostgreSQL with one (ours, on this machine), as the core's own connections do; else as
 * `connection` says. A socket skips the TCP stack: a prepared INSERT took 65 us instead of 82 us
 * here, and the server answers the same. `connection` and the URL stay TCP: apps parse and log them.
 */
export function driverConnection(database: Pick<TestDatabase, 'connection' | 'server'>): ConnectionOptions {
  const { server, connection } = database;
  return server.engine === 'postgres' && server.socket ? { ...connection, host: server.socket } : connection;
}
