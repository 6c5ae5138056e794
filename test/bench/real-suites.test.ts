/**
 * The real-suite generators write suites that run: shape (a) at 2 files, once through fast-test-db's
 * runner wrapper from the built package (leg B's config), every test passing and the runner's own
 * test time read back. Timings are not asserted: the bench's job is to measure them.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { writeShape, SHAPES } from '../../bench/real-suites/generate.js';
import { runLeg } from '../../bench/real-suites/legs.js';
import { stopOwnedServer } from '../../src/server/registry.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = join(ROOT, 'bench/real-suites/.generated', `test-${process.pid}`);
const dataRoot = mkdtempSync('/dev/shm/ftdb-rs-test-');
// The server runs as an unprivileged user when we are root: it must be able to enter the data root.
chmodSync(dataRoot, 0o755);

afterAll(async () => {
  for (const user of readdirSync(dataRoot))
    for (const srv of readdirSync(join(dataRoot, user))) await stopOwnedServer(join(dataRoot, user, srv)).catch(() => undefined);
  rmSync(dataRoot, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

it('generates the import-heavy shape and runs it on fast-test-db with every test passing', { timeout: 120_000 }, async () => {
  mkdirSync(dir, { recursive: true });
  writeShape('imports', dir, { files: 2, modules: 3 });
  const r = await runLeg(SHAPES.imports, dir, 'ftdb', { FAST_TEST_DB_DATA_ROOT: dataRoot, FAST_TEST_DB_REUSE: '0' });
  expect(r.failure ?? '').toBe('');
  expect(r.ok).toBe(true);
  expect(r.passed).toBe(4);
  expect(r.failed).toBe(0);
  expect(r.testsMs).toBeGreaterThan(0);
});
