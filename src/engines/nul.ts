import { FastTestDbError } from '../errors.js';

/** No engine takes a NUL byte in a name or string: refused before it reaches SQL text. */
export function refuseNul(text: string, what: 'identifier' | 'literal'): string {
  if (!text.includes('\0')) return text;
  if (what === 'identifier')
    throw new FastTestDbError('BAD_OPTION', `identifier ${JSON.stringify(text)} contains a NUL byte`, 'use a name without NUL bytes');
  throw new FastTestDbError('BAD_OPTION', `literal contains a NUL byte`, 'remove the NUL byte');
}
