/**
 * How the library's own connections (admin, template, clones) stay out of statement timing: the
 * core marks each one, and the timing wrapper passes a marked connection's calls straight through.
 * A registered symbol, so that the mark is seen across copies of the library and Jest's sandboxes.
 */
export const UNTIMED = Symbol.for('fast-test-db.untimed');

export function untimed<T>(connection: T): T {
  if (connection && typeof connection === 'object' && !(UNTIMED in connection)) Object.defineProperty(connection, UNTIMED, { value: true });
  return connection;
}

export const isUntimed = (x: unknown): boolean => typeof x === 'object' && x !== null && (x as { [UNTIMED]?: boolean })[UNTIMED] === true;
