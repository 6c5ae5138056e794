/**
 * A run's end gives its server back with releaseOwnedServer, which holds the registry's lock while
 * it waits for the keeper to exit. The keeper must not ask for that lock in turn: it once did, and
 * every run's end then stalled until the keeper's 5 s lock timeout. The bound below is that
 * timeout, a deadlock check and not a speed target: the stop itself takes a small part of it.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { releaseOwnedServer } from '../../src/server/registry.js';
import { startServer } from '../../src/core/database.js';
import { privateDataRoot, removeDataRoot } from '../core/helpers.js';

describe('giving a server back at the end of a run', () => {
  const dataRoot = privateDataRoot('release');
  afterAll(() => removeDataRoot(dataRoot));

  it('stops an idle server without the keeper waiting for the lock the caller holds', async () => {
    const server = await startServer({ engine: 'postgres', dataRoot });
    expect(server.owned).toBe(true);
    const began = performance.now();
    expect(await releaseOwnedServer(server.stateDir!)).toBe('stopped');
    expect(performance.now() - began).toBeLessThan(4500);
    expect(existsSync(server.stateDir!)).toBe(false);
  });
});
