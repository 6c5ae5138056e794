/**
 * A process that started a container and ends, on a real Docker engine with Ryuk off: a signal
 * removes the container and ends the process as the signal would (130/143) within seconds, whether
 * something keeps it alive or nothing does; an uncaught exception removes it at exit; after a
 * SIGKILL, which no process can clean up after, the container stays, `doctor` and `clean` list
 * it, and the project's next start removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanLeftContainers, containerChecks, ourContainers } from '../../src/server/providers/container-leftovers.js';
import { containersOf, images, skipReason } from './helpers.js';
import { startOwner } from './fixtures/spawn.js';

const postgres = { ENGINE: 'postgres', IMAGE: images.postgres };

describe.skipIf(skipReason)('a container owner that ends (real Docker engine)', () => {
  for (const [sig, end, expected] of [
    ['SIGTERM', 'busy', 143],
    ['SIGINT', 'idle', 130],
  ] as const) {
    it(`${sig}, with ${end === 'busy' ? 'a timer keeping the process alive' : 'nothing left alive'}: container gone, exit ${expected}`, async () => {
      const owner = await startOwner({ ...postgres, END: end });
      expect(await containersOf(owner.child.pid!)).toHaveLength(1);
      const sent = Date.now();
      owner.child.kill(sig);
      const { code, signal, at } = await owner.exited;
      // Killed by the signal, or exited with its code: a shell shows both as 128 + the signal's number.
      expect(signal === sig || code === expected, `exit ${code} ${signal}\n${owner.output()}`).toBe(true);
      expect(at - sent).toBeLessThan(5_000);
      expect(await containersOf(owner.child.pid!)).toEqual([]);
    }, 60_000);
  }

  it('a natural end removes it too, with exit code 0', async () => {
    const owner = await startOwner({ ...postgres, END: 'start-only' });
    const { code } = await owner.exited;
    expect(code).toBe(0);
    expect(await containersOf(owner.child.pid!)).toEqual([]);
  }, 60_000);

  it('an uncaught exception removes it too (synchronously, with the docker CLI), with exit code 1', async () => {
    const owner = await startOwner({ ...postgres, END: 'throw' });
    const { code } = await owner.exited;
    expect(code, owner.output()).toBe(1);
    expect(await containersOf(owner.child.pid!)).toEqual([]);
  }, 60_000);

  it('SIGKILL leaves it; doctor and clean --dry-run list it, and the next run of the project removes it', async () => {
    // A project of its own, so that no other test's start or clean removes it meanwhile.
    const project = mkdtempSync(join(tmpdir(), 'ftdb-container-project-'));
    try {
      const owner = await startOwner({ ...postgres, END: 'busy', PROJECT: project });
      const pid = owner.child.pid!;
      owner.child.kill('SIGKILL');
      await owner.exited;
      const left = await containersOf(pid);
      expect(left).toHaveLength(1);
      expect((await ourContainers(project)).find((c) => c.id === left[0])).toMatchObject({ ended: true, engine: 'postgres', project });
      expect(await containerChecks(project)).toMatchObject([
        { id: 'left-containers', status: 'warn', detail: expect.stringContaining(left[0]!) },
      ]);
      expect(await cleanLeftContainers({ dryRun: true, project })).toMatchObject([
        { dir: expect.stringContaining(left[0]!), action: 'would remove', reason: expect.stringContaining(`process ${pid}@`) },
      ]);
      expect(await containersOf(pid)).toEqual(left);

      const next = await startOwner({ ...postgres, END: 'start-only', PROJECT: project });
      expect((await next.exited).code).toBe(0);
      expect(await containersOf(pid)).toEqual([]);
      expect(await ourContainers(project)).toEqual([]);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 90_000);
});
