/** The worker half of the runners, on the suite's embedded PostgreSQL. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createTestDatabase } from '../../src/index.js';
import { postgresDialect } from '../../src/dialect/postgres.js';
import type { Handoff } from '../../src/runners/handoff.js';
import { cloneFresh } from '../../src/runners/worker.js';

it('clones even when another node:test child removed the run directory a moment before', async () => {
  const probe = await createTestDatabase({ worker: 'note-probe' });
  const dir = join(mkdtempSync('/tmp/ftdb-notes-'), 'runs', 'gone');
  const name = `ftdb_wnote${process.pid}`;
  const handoff: Handoff = {
    v: 1, run: 'gone', engine: 'postgres', prefix: 'ftdb', server: probe.server, template: probe.template.name,
    seeded: [], isolation: 'file', envVars: [], urlPattern: '', dir,
  };
  const admin = await postgresDialect.connect(probe.server);
  try {
    // The directory does not exist, as when the last child of a batch removed it while we cloned.
    await cloneFresh(handoff, name);
    expect(existsSync(join(dir, name))).toBe(true);
    expect((await postgresDialect.readMarker(admin, name))?.kind).toBe('database');
  } finally {
    await postgresDialect.drop(admin, name, { force: true });
    await admin.close();
    await probe.destroy();
    rmSync(join(dir, '..', '..'), { recursive: true, force: true });
  }
});
