import { FastTestDbError } from '../errors.js';

/**
 * The npm package a module specifier comes from: `mysql2/promise` is in `mysql2`,
 * `@prisma/client/runtime/client` in `@prisma/client`. npm reads `a/b` as a GitHub repository,
 * so an install line must name the package alone.
 */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Loads an optional peer dependency (a driver, an ORM, testcontainers) only when a code path
 * needs it, so that importing the core never loads one. A missing package gets one clear error.
 */
export async function loadPeer<T = any>(name: string, why: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      const pkg = packageOf(name);
      const which = pkg === name ? `the package "${pkg}"` : `"${name}" from the package "${pkg}"`;
      throw new FastTestDbError('PEER_MISSING', `${why} needs ${which}, which is not installed`, `npm install --save-dev ${pkg}`, {
        cause: e,
      });
    }
    throw e;
  }
}

/**
 * A module that needs a peer, loaded at the same time as the peer: one after the other, the two
 * chains of imports cost twice the round trips of a module loader (tsx's, a runner's). The peer's
 * clear error wins over the module's own, which fails too when the module imports the peer.
 */
export async function withPeer<T>(peer: Promise<unknown>, module: Promise<T>): Promise<T> {
  const [loaded, mod] = await Promise.allSettled([peer, module]);
  if (loaded.status === 'rejected') throw loaded.reason;
  if (mod.status === 'rejected') throw mod.reason;
  return mod.value;
}
