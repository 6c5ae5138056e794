import { FastTestDbError } from './errors.js';

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
      throw new FastTestDbError(
        'PEER_MISSING',
        `${why} needs the package "${name}", which is not installed`,
        `npm install --save-dev ${name}`,
        { cause: e },
      );
    }
    throw e;
  }
}
