/** Quoting and database names: what every statement the library sends is built from. */
import { describe, expect, it } from 'vitest';
import { databaseName, quoteIdent, quoteLiteral } from '../../src/engines/quote.js';

describe('quoting', () => {
  it('doubles the quote character of each family', () => {
    expect(quoteIdent('postgres', 'a"b')).toBe('"a""b"');
    expect(quoteIdent('mysql', 'a`b')).toBe('`a``b`');
    expect(quoteLiteral('postgres', "it's \\ here")).toBe("'it''s \\ here'");
    expect(quoteLiteral('mysql', "it's \\ here")).toBe("'it''s \\\\ here'");
  });
  it('refuses NUL bytes', () => {
    expect(() => quoteIdent('postgres', 'a\0b')).toThrow(/NUL/);
  });
});

describe('database names', () => {
  it('keep plain parts readable', () => {
    expect(databaseName('postgres', ['ftdb', undefined, 'w1'])).toBe('ftdb_w1');
  });
  it('reduce hostile parts and add a hash that keeps them distinct', () => {
    const a = databaseName('postgres', ['ftdb', 'w"; DROP TABLE x; --']);
    const b = databaseName('postgres', ['ftdb', 'w"; DROP TABLE y; --']);
    expect(a).toMatch(/^[a-z0-9_]+$/);
    expect(a).not.toBe(b);
    expect(databaseName('postgres', ['ftdb', 'w"; DROP TABLE x; --'])).toBe(a);
  });
  it('shorten long names deterministically within the engine limit', () => {
    const long = ['ftdb', 'r'.repeat(40), 's'.repeat(40), 'w'.repeat(40)];
    const pg = databaseName('postgres', long);
    expect(Buffer.byteLength(pg)).toBeLessThanOrEqual(63);
    expect(databaseName('postgres', long)).toBe(pg);
    expect(databaseName('mysql', long).length).toBeLessThanOrEqual(64);
    expect(databaseName('postgres', [...long.slice(0, 3), 'v'.repeat(40)])).not.toBe(pg);
  });
});
