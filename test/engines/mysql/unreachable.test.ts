/**
 * MariaDB's binary is system-wide, but its data directory is ours: as root the server runs as
 * `nobody`, which must be able to reach it. A dataRoot under a 0700 directory is refused up front,
 * naming the directory, instead of a server that dies on its first write (issue 13 item 6).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, FastTestDbError } from '../../../src/index.js';
import { removeDataRoot } from '../../core/helpers.js';

describe('MariaDB with its data under a directory the server account cannot enter', () => {
  const home = mkdtempSync(join(tmpdir(), 'ftdb-my-home-')); // 0700
  const dataRoot = join(home, 'data');
  mkdirSync(dataRoot, { mode: 0o755 });
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(home, { recursive: true, force: true });
  });

  it('is refused with the directory to open, or starts when we are not root', async () => {
    const outcome = await createTestDatabase({ engine: 'mysql', dataRoot, worker: 'unreach' }).then(
      async (db) => (await db.destroy(), 'started'),
      (e: unknown) => e,
    );
    if (process.getuid?.() === 0) {
      expect(outcome).toBeInstanceOf(FastTestDbError);
      expect((outcome as FastTestDbError).code).toBe('SERVER_START_FAILED');
      expect((outcome as FastTestDbError).message).toContain(`"nobody" (we are root), and that user cannot enter ${home}`);
    } else expect(outcome).toBe('started');
  });
});
