/**
 * A server known by its URL: which engine the scheme names, where it is (refusing hosts that are
 * not this machine unless allowed), and the admin credentials it gives or the defaults fill in.
 */
import { FastTestDbError } from '../../errors.js';
import type { Engine, ServerInfo } from '../../types.js';

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
