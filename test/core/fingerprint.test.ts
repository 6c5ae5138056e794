/** The template fingerprint: what changes it and what does not. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/core/fingerprint.js';

describe('fingerprint', () => {
  const base = { engine: 'postgres', flavor: 'postgres', serverMajor: 18, unlogged: false, migrates: true };
  it('changes with one byte of a migration file, and only then', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-fp-'));
    writeFileSync(join(dir, '001.sql'), 'create table a (id int);');
    const first = await fingerprint({ ...base, migrationFiles: '*.sql' }, dir);
    expect(await fingerprint({ ...base, migrationFiles: '*.sql' }, dir)).toBe(first);
    writeFileSync(join(dir, '001.sql'), 'create table a (id int); ');
    expect(await fingerprint({ ...base, migrationFiles: '*.sql' }, dir)).not.toBe(first);
  });
  it('covers the server major version and the cache key', async () => {
    const a = await fingerprint({ ...base, cacheKey: 'k' });
    expect(await fingerprint({ ...base, cacheKey: 'k', serverMajor: 16 })).not.toBe(a);
    expect(await fingerprint({ ...base, cacheKey: 'k2' })).not.toBe(a);
  });
  it('rejects a glob that matches nothing', async () => {
    await expect(fingerprint({ ...base, migrationFiles: 'nope/**/*.sql' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});
