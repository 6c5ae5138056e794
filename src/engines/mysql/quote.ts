/** How MySQL and MariaDB spell names and strings. */
import type { Quoting } from '../engine.js';
import { refuseNul } from '../nul.js';

export const quoting: Quoting = {
  quoteIdent: (name) => '`' + refuseNul(name, 'identifier').replace(/`/g, '``') + '`',
  // Backslashes are escapes unless NO_BACKSLASH_ESCAPES: doubled, they stay themselves either way.
  quoteLiteral: (value) => `'${refuseNul(value, 'literal').replace(/\\/g, '\\\\').replace(/'/g, "''")}'`,
  // Characters of a schema name.
  maxNameBytes: 64,
};

export const id = quoting.quoteIdent;
export const lit = quoting.quoteLiteral;
/** Qualified name `a.b` with both parts quoted. */
export const qual = (...parts: string[]) => parts.map(id).join('.');
