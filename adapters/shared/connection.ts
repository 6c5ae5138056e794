/**
 * What an adapter's own driver connects to: this database over the server's Unix socket when the
 * engine's drivers take one as their host (a PostgreSQL of ours, on this machine), as the core's own
 * connections do; else as `connection` says. A socket skips the TCP stack, and the server answers
 * the same. `connection` and the URL stay TCP: apps parse and log them.
 */
import type { ConnectionOptions, TestDatabase } from '../../src/adapter-kit.js';
import { engineFor } from '../../src/adapter-kit.js';

export function driverConnection(database: Pick<TestDatabase, 'connection' | 'server'>): ConnectionOptions {
  const { server, connection } = database;
  return engineFor(server.engine).urls.socketAsHost && server.socket ? { ...connection, host: server.socket } : connection;
}
