/** How PostgreSQL spells names and strings. */
import type { Quoting } from '../engine.js';
import { refuseNul } from '../nul.js';

export const quoting: Quoting = {
  quoteIdent: (name) => `"${refuseNul(name, 'identifier').replace(/"/g, '""')}"`,
  // standard_conforming_strings (the default since 9.1) takes backslashes literally.
  quoteLiteral: (value) => `'${refuseNul(value, 'literal').replace(/'/g, "''")}'`,
  // NAMEDATALEN-1.
  maxNameBytes: 63,
};

export const id = quoting.quoteIdent;
export const lit = quoting.quoteLiteral;
