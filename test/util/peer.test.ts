/** A missing optional package is named as npm installs it: the package, never a subpath. */
import { describe, expect, it } from 'vitest';
import { loadPeer, packageOf, withPeer } from '../../src/util/peer.js';

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

describe('withPeer', () => {
  it("gives the peer's PEER_MISSING when the module that needs it fails too, whichever fails first", async () => {
    const moduleFails = Promise.reject(new Error('Cannot find package imported from roles.js'));
    const e = await withPeer(loadPeer('ftdb-absent-package', 'PostgreSQL support'), moduleFails).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'PEER_MISSING', fix: 'npm install --save-dev ftdb-absent-package' });
  });
  it("gives the module's own error when the peer loaded", async () => {
    const e = await withPeer(Promise.resolve({}), Promise.reject(new Error('roles.js: syntax'))).catch((x: unknown) => x);
    expect((e as Error).message).toBe('roles.js: syntax');
  });
  it('gives the module once both loaded', async () => {
    await expect(withPeer(Promise.resolve({}), Promise.resolve({ roles: 1 }))).resolves.toEqual({ roles: 1 });
  });
});
