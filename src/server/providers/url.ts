/**
 * A server known by its URL: which engine the scheme names, where it is (refusing hosts that are
 * not this machine unless allowed), and the admin credentials it gives or the defaults fill in.
 */
import { engineFor, engineOfScheme, URL_SCHEMES } from '../../engines/index.js';
import { FastTestDbError } from '../../errors.js';
import type { EngineName, ServerInfo } from '../../types.js';

export function engineOfUrl(url: string): EngineName {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  const engine = engineOfScheme(scheme);
  if (engine) return engine.name;
  const schemes = URL_SCHEMES.map((s) => `${s}://`);
  throw new FastTestDbError(
    'BAD_OPTION',
    `cannot tell the engine of URL scheme "${scheme}:"`,
    `use a ${schemes.slice(0, -1).join(', ')} or ${schemes.at(-1)} URL`,
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

/**
 * Where the URL points and as whom. What it leaves out is what the engine's own clients would
 * take: `env` is where those read their fallbacks (libpq's PGUSER and PGPASSWORD).
 */
export function parseServerUrl(
  url: string,
  allowRemote: boolean,
  env: Readonly<Record<string, string | undefined>>,
): Omit<ServerInfo, 'version' | 'major' | 'tuned' | 'flavor'> {
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
  const defaults = engineFor(engine).urls.defaults(env);
  return {
    engine,
    provider: 'external',
    owned: false,
    host,
    port: Number(u.port) || defaults.port,
    socket,
    user: decodeURIComponent(u.username) || defaults.user,
    password: decodeURIComponent(u.password) || defaults.password,
    adminDatabase: decodeURIComponent(u.pathname.slice(1)) || defaults.adminDatabase,
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
export function serverAt(url: string, allowRemote: boolean, env: Readonly<Record<string, string | undefined>>): ServerInfo {
  const partial = parseServerUrl(url, allowRemote, env);
  return { ...partial, flavor: partial.engine, version: '', major: 0, tuned: false };
}
