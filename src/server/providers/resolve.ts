/**
 * Where the server comes from: a URL we do not own, a server a runner's global setup already
 * started for this run (handed down in FAST_TEST_DB_SERVER), an embedded one, or a container.
 */
import { describeServer } from '../../core/client.js';
import { dialectFor } from '../../engines/index.js';
import { FastTestDbError } from '../../errors.js';
import type { Engine, ServerInfo, TestDatabaseOptions } from '../../types.js';
import { acquireOwnedServer, type OwnedServerRequest } from '../registry.js';
import { resolveOptions } from '../../options/resolve.js';

/** Env var through which a runner's global setup hands its server to worker processes. */
export const SERVER_ENV = 'FAST_TEST_DB_SERVER';

export function engineOfUrl(url: string): Engine {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  throw new FastTestDbError(
    'BAD_OPTION',
    `cannot tell the engine of URL scheme "${scheme}:"`,
    'use a postgres://, postgresql://, mysql:// or mariadb:// URL',
  );
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[?::1\]?)$/i;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * URL parameters through which a driver may be sent elsewhere than the URL's host: PostgreSQL's
 * `host` (libpq, pg) and `socket`; mysql2's `socketPath` and `host`. An absolute path is a Unix
 * socket on this machine; anything else is a host name, checked like the URL's own.
 */
const HOST_PARAMS = ['host', 'socket', 'socketPath', 'hostaddr'];

export function parseServerUrl(url: string, allowRemote: boolean): Omit<ServerInfo, 'version' | 'major' | 'tuned' | 'flavor'> {
  let u: URL;
  try {
    u = new URL(url);
  } catch (e) {
    throw new FastTestDbError(
      'BAD_OPTION',
      `the server URL is not a valid URL`,
      'use the form postgres://user:password@host:port/database',
      { cause: e },
    );
  }
  const engine = engineOfUrl(url);
  let host = decodeURIComponent(u.hostname) || 'localhost';
  let socket: string | undefined;
  for (const name of HOST_PARAMS) {
    for (const value of u.searchParams.getAll(name)) {
      // libpq takes a comma-separated list of hosts: every one of them must pass.
      for (const part of value.split(',')) {
        if (part.startsWith('/')) socket ??= part;
        else if (part !== '') {
          if (!isLoopback(part) && !allowRemote) throw remoteRefused(part, `the ${name}= parameter of the URL`);
          host = part;
        }
      }
    }
  }
  if (!socket && !isLoopback(host) && !allowRemote) throw remoteRefused(host, 'the URL');
  return {
    engine,
    provider: 'external',
    owned: false,
    host,
    port: Number(u.port) || (engine === 'postgres' ? 5432 : 3306),
    socket,
    user: decodeURIComponent(u.username) || (engine === 'postgres' ? (process.env.PGUSER ?? 'postgres') : 'root'),
    password: decodeURIComponent(u.password) || (engine === 'postgres' ? (process.env.PGPASSWORD ?? '') : ''),
    adminDatabase: decodeURIComponent(u.pathname.slice(1)) || (engine === 'postgres' ? 'postgres' : 'mysql'),
  };
}

function remoteRefused(host: string, where: string): FastTestDbError {
  return new FastTestDbError(
    'REMOTE_REFUSED',
    `refusing to create and drop databases on ${host} (from ${where}), which is not this machine`,
    'pass allowRemote: true (or FAST_TEST_DB_ALLOW_REMOTE=1) if that server really is a test server',
  );
}

/**
 * A server known only by its URL, before anyone asked it what it is: flavor, version and tuning
 * are placeholders until describe() fills them in.
 */
export function serverAt(url: string, allowRemote: boolean): ServerInfo {
  const partial = parseServerUrl(url, allowRemote);
  return { ...partial, flavor: partial.engine, version: '', major: 0, tuned: false };
}

async function external(url: string, allowRemote: boolean): Promise<ServerInfo> {
  const probe = serverAt(url, allowRemote);
  const report = await describeServer(await dialectFor(probe.engine), probe);
  return { ...probe, flavor: report.flavor, version: report.version, major: Number(report.version.split('.')[0]), tuned: report.tuned };
}

export async function resolveServer(options: TestDatabaseOptions, engine: Engine): Promise<ServerInfo> {
  const { server: mode, url, allowRemote } = resolveOptions(options);
  if (mode === 'external' || (mode === 'auto' && url)) {
    if (!url) throw new FastTestDbError('BAD_OPTION', `server: 'external' needs a URL`, 'pass url, or set TEST_DATABASE_URL');
    return external(url, allowRemote);
  }
  const handed = process.env[SERVER_ENV];
  if (handed && mode === 'auto') {
    const info = handedServers(handed).find((s) => s.engine === engine);
    if (info) return info;
  }
  if (mode === 'container') {
    const { startContainer } = await import('./container.js');
    return startContainer(engine, options);
  }
  if (mode !== 'auto' && mode !== 'embedded')
    throw new FastTestDbError('BAD_OPTION', `unknown server mode "${mode}"`, "use 'auto', 'embedded', 'external' or 'container'");
  return acquireOwnedServer((await embeddedRequest(engine, options)).request);
}

/** The servers a runner's global setup handed down; anything else in the variable is refused clearly. */
export function handedServers(raw: string): ServerInfo[] {
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    list = undefined;
  }
  if (!Array.isArray(list) || !list.every((s) => s && typeof s === 'object' && typeof s.engine === 'string' && typeof s.port === 'number'))
    throw new FastTestDbError(
      'BAD_OPTION',
      `${SERVER_ENV} does not hold the server list a runner's global setup writes (it starts with ${JSON.stringify(raw.slice(0, 40))})`,
      `unset ${SERVER_ENV}: the runner integrations set it for their workers; to use a server of your own, set TEST_DATABASE_URL instead`,
    );
  return list as ServerInfo[];
}

/**
 * The embedded server this project's processes share for `engine` and `options`: tests, the
 * runners and the CLI's `start` all build their request here, so that they meet on one server.
 */
export async function embeddedRequest(
  engine: Engine,
  options: TestDatabaseOptions,
  port?: number,
): Promise<{ request: OwnedServerRequest; label: string }> {
  if (engine === 'postgres') {
    const { findPostgresBinaries, planEmbeddedPostgres } = await import('../../engines/postgres/embedded.js');
    const bins = findPostgresBinaries(options);
    return {
      label: `PostgreSQL ${bins.version}`,
      request: {
        engine,
        identity: [bins.binDir, options.maxConnections, resolveOptions(options).locale],
        options,
        plan: (ctx) => planEmbeddedPostgres(port ? { ...ctx, port } : ctx),
      },
    };
  }
  const { findMysqlBinary, planEmbeddedMysql } = await import('../../engines/mysql/embedded.js');
  const bin = findMysqlBinary(options);
  const binDir = resolveOptions(options).binDir;
  return {
    label: `${bin.flavor === 'mariadb' ? 'MariaDB' : 'MySQL'} ${bin.version}`,
    request: {
      engine,
      identity: [binDir, options.bufferPoolSize, options.redoLogSize, options.maxConnections],
      options,
      plan: (ctx) => planEmbeddedMysql(port ? { ...ctx, port } : ctx),
    },
  };
}
