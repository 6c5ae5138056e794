/**
 * The Node/testcontainers pairing we support: testcontainers 11 on Node 20 and later (the dev
 * dependency); testcontainers 12 needs Node 22.22 and crashes at import on older ones, which must
 * read as PEER_UNSUPPORTED naming both versions, not as a Docker engine that does not answer. The
 * second copy is installed under the alias testcontainers-12. No Docker engine is needed.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadTestcontainers } from '../../src/server/providers/container-peer.js';

const require = createRequire(import.meta.url);
const v12 = (require('testcontainers-12/package.json') as { version: string }).version;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const nodeTakes12 = major > 22 || (major === 22 && minor >= 22);

describe('testcontainers and Node', () => {
  it('testcontainers 11 loads on this Node', async () => {
    const tc = await loadTestcontainers();
    expect(typeof tc.GenericContainer).toBe('function');
  });

  it(`testcontainers ${v12} on Node ${process.versions.node}: ${nodeTakes12 ? 'loads' : 'PEER_UNSUPPORTED with both versions'}`, async () => {
    const loaded = await loadTestcontainers('testcontainers-12').catch((x: unknown) => x);
    if (nodeTakes12) return void expect(typeof (loaded as { GenericContainer?: unknown }).GenericContainer).toBe('function');
    expect(loaded).toMatchObject({ code: 'PEER_UNSUPPORTED' });
    expect((loaded as Error).message).toContain(`testcontainers ${v12}`);
    expect((loaded as Error).message).toContain(`Node ${process.version}`);
    expect((loaded as { fix: string }).fix).toContain('testcontainers@^11');
  });
});
