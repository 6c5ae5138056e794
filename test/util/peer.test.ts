/** A missing optional package is named as npm installs it: the package, never a subpath. */
import { describe, expect, it } from 'vitest';
import { loadPeer, packageOf } from '../../src/util/peer.js';

describe('packageOf', () => {
  it('strips subpaths and keeps scopes', () => {
    expect(packageOf('mysql2/promise')).toBe('mysql2');
    expect(packageOf('drizzle-kit/api')).toBe('drizzle-kit');
    expect(packageOf('@prisma/client/runtime/client')).toBe('@prisma/client');
    expect(packageOf('@prisma/adapter-pg')).toBe('@prisma/adapter-pg');
    expect(packageOf('pg')).toBe('pg');
  });
});

describe('loadPeer', () => {
  it('names the package to install when a subpath of a missing package is loaded', async () => {
    const e = await loadPeer('ftdb-absent-package/api', 'Building the schema').catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'PEER_MISSING', fix: 'npm install --save-dev ftdb-absent-package' });
    expect((e as Error).message).toContain('"ftdb-absent-package/api" from the package "ftdb-absent-package"');
  });
  it('keeps the scope of a scoped package', async () => {
    const e = await loadPeer('@ftdb-absent/driver/promise', 'MySQL support').catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'PEER_MISSING', fix: 'npm install --save-dev @ftdb-absent/driver' });
  });
});
