/**
 * A process that started a container and ends, on a real Docker engine with Ryuk off: a signal
 * removes the container and ends the process as the signal would (130/143) within seconds, whether
 * something keeps it alive or nothing does; after a SIGKILL, which no process can clean up after,
 * the container stays, `clean` lists it, and the next start removes it.
 */
import { describe, expect, it } from 'vitest';
import { ourContainers, removeLeftContainers } from '../../src/server/providers/container.js';
import { containersOf, images, ryukOff, skipReason, startContainer, until } from './helpers.js';
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

  it('SIGKILL leaves it; clean --dry-run lists it, and the next start removes it', async () => {
    const owner = await startOwner({ ...postgres, END: 'busy' });
    const pid = owner.child.pid!;
    owner.child.kill('SIGKILL');
    await owner.exited;
    const left = await containersOf(pid);
    expect(left).toHaveLength(1);
    expect((await ourContainers()).find((c) => c.id === left[0])).toMatchObject({ ended: true, engine: 'postgres' });
    const listed = await removeLeftContainers({ dryRun: true });
    expect(listed.find((c) => c.id === left[0])).toMatchObject({ removed: false });
    expect(await containersOf(pid)).toEqual(left);

    process.env.TESTCONTAINERS_RYUK_DISABLED ??= ryukOff.TESTCONTAINERS_RYUK_DISABLED;
    const next = await startContainer('postgres', { image: images.postgres });
    try {
      expect(
        await until(
          () => containersOf(pid),
          (ids) => ids.length === 0,
          10_000,
        ),
      ).toEqual([]);
    } finally {
      expect(await next.stop()).toBe('stopped');
    }
  }, 90_000);
});
