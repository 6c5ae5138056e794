/** The worker half of the runners, on the suite's embedded PostgreSQL. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createTestDatabase } from '../../src/index.js';
import type { TestDatabase } from '../../src/types.js';
import { engineFor } from '../../src/engines/index.js';
import { NAME_SLOT, workerTarget, type Handoff } from '../../src/runners/shared/handoff.js';
import { cloneFresh, workerDatabase } from '../../src/runners/shared/worker.js';
import { alreadyCloned } from '../../src/runners/shared/notes.js';

const roles = await engineFor('postgres').load();

/** A handoff as a runner's global setup writes it, for the template of `probe`. */
function handoffFor(probe: TestDatabase, run: string, dir: string, rest: Pick<Handoff, 'isolation' | 'urlPattern'>): Handoff {
  return {
    v: 1,
    run,
    engine: 'postgres',
    prefix: 'ftdb',
    server: probe.server,
    template: probe.template.name,
    fingerprint: probe.template.fingerprint,
    seeded: [],
    envVars: [],
    dir,
    ...rest,
  };
}

it('clones even when another node:test child removed the run directory a moment before', async () => {
  const probe = await createTestDatabase({ worker: 'note-probe' });
  const dir = join(mkdtempSync('/tmp/ftdb-notes-'), 'runs', 'gone');
  const name = `ftdb_wnote${process.pid}`;
  const handoff = handoffFor(probe, 'gone', dir, { isolation: 'file', urlPattern: '' });
  const admin = await roles.connector.connect(probe.server);
  try {
    // The directory does not exist, as when the last child of a batch removed it while we cloned.
    await cloneFresh(handoff, name);
    expect(existsSync(join(dir, name))).toBe(true);
    expect((await roles.markers.readMarker(admin, name))?.kind).toBe('database');
  } finally {
    await roles.templates.drop(admin, name, { force: true });
    await admin.close();
    await probe.destroy();
    rmSync(join(dir, '..', '..'), { recursive: true, force: true });
  }
});

it("a runner's worker database: disposing the handle closes it, destroy() drops it and the run forgets its clone", async () => {
  const probe = await createTestDatabase({ worker: 'own-probe' });
  const dir = mkdtempSync('/tmp/ftdb-own-');
  const handoff = handoffFor(probe, 'own', dir, { isolation: 'worker', urlPattern: `postgres://x/${NAME_SLOT}` });
  const target = workerTarget(handoff, `own${process.pid}`);
  const admin = await roles.connector.connect(probe.server);
  try {
    await cloneFresh(handoff, target.name);
    const db = await workerDatabase(handoff, target);
    expect(db.template).toEqual({ name: probe.template.name, fingerprint: probe.template.fingerprint, built: false });
    expect(db.url).toBe(target.url);
    await db.reset();
    await db[Symbol.asyncDispose]();
    expect((await roles.markers.readMarker(admin, target.name))?.kind).toBe('database');
    expect(alreadyCloned(handoff, target.name)).toBe(true);
    await db.destroy();
    expect(await roles.markers.readMarker(admin, target.name)).toBeUndefined();
    expect(alreadyCloned(handoff, target.name)).toBe(false);
  } finally {
    if (await roles.markers.readMarker(admin, target.name)) await roles.templates.drop(admin, target.name, { force: true });
    await admin.close();
    await probe.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the core database is its own: disposing the handle drops it', async () => {
  const db = await createTestDatabase({ worker: 'dispose-probe' });
  const admin = await roles.connector.connect(db.server);
  try {
    await db.reset();
    await db.close();
    expect((await roles.markers.readMarker(admin, db.name))?.kind).toBe('database');
    await db[Symbol.asyncDispose]();
    expect(await roles.markers.readMarker(admin, db.name)).toBeUndefined();
  } finally {
    await admin.close();
  }
});
