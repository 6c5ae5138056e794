/**
 * A connection for the length of one job: opened, used, closed whatever happens. Every
 * connect-then-finally-close in the library goes through here.
 */
import type { DescribeReport, ServerInfo } from '../types.js';
import type { Connector, Engine, SqlClient } from './engine.js';

/** Runs `fn` on a connection to `database` (default: the server's admin database), closed afterwards. */
export function withClient<C extends SqlClient, T>(connector: Connector<C>, server: ServerInfo, fn: (client: C) => Promise<T>): Promise<T>;
export function withClient<C extends SqlClient, T>(
  connector: Connector<C>,
  server: ServerInfo,
  database: string | undefined,
  fn: (client: C) => Promise<T>,
): Promise<T>;
export async function withClient<C extends SqlClient, T>(
  connector: Connector<C>,
  server: ServerInfo,
  dbOrFn: string | undefined | ((client: C) => Promise<T>),
  maybeFn?: (client: C) => Promise<T>,
): Promise<T> {
  const fn = typeof dbOrFn === 'function' ? dbOrFn : maybeFn!;
  const database = typeof dbOrFn === 'function' ? undefined : dbOrFn;
  const client = await connector.connect(server, database);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** What the server is and how it is tuned, over a connection of its own. */
export async function describeServer(engine: Engine, server: ServerInfo): Promise<DescribeReport> {
  const { connector, inspector } = await engine.load();
  return withClient(connector, server, (admin) => inspector.describe(admin, server));
}
