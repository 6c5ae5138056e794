/**
 * Real Vitest with 2 workers on a container server, PostgreSQL and MariaDB, Ryuk off: each worker
 * gets a database of its own on the container's server, and the container is gone when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReporting } from '../runners/harness.js';
import { containersOf, images, ryukOff, skipReason } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = join(import.meta.dirname, 'fixtures/vitest');

interface Record {
  file: string;
  worker: string;
  pid: number;
  db: string;
  datadir: string;
  before: number;
}

async function runVitest(engine: 'postgres' | 'mysql', image: string | undefined) {
  const dir = mkdtempSync('/tmp/ftdb-container-vitest-');
  const report = join(dir, 'report.jsonl');
  const env = {
    ...ryukOff,
    FAST_TEST_DB_SERVER_MODE: 'container',
    FAST_TEST_DB_ENGINE: engine,
    ...(image ? { FAST_TEST_DB_IMAGE: image } : {}),
    FAST_TEST_DB_CACHE_DIR: join(dir, 'cache'),
  };
  const result = await runReporting<Record>(
    join(ROOT, 'node_modules/.bin/vitest'),
    ['run', '--config', 'vitest.config.ts'],
    FIXTURE,
    env,
    report,
  );
  rmSync(dir, { recursive: true, force: true });
  return result;
}

describe.skipIf(skipReason)('Vitest with 2 workers on a container (real Docker engine)', () => {
  for (const [engine, image, datadir] of [
    ['postgres', images.postgres, '/var/lib/postgresql/data'],
    ['mysql', images.mariadb, '/var/lib/mysql/'],
  ] as const) {
    it(`${engine === 'postgres' ? 'PostgreSQL' : 'MariaDB'}: a database per worker on the container's server, the container gone afterwards`, async () => {
      const r = await runVitest(engine, image);
      expect(r.code, r.output.slice(-4000)).toBe(0);
      expect(r.records).toHaveLength(4);
      // The server is the container's: its data directory, not one of ours on this machine.
      for (const rec of r.records) expect(rec.datadir).toBe(datadir);
      const byWorker = new Map<string, Set<string>>();
      for (const rec of r.records) byWorker.set(rec.worker, (byWorker.get(rec.worker) ?? new Set()).add(rec.db));
      expect(byWorker.size).toBe(2);
      for (const [worker, dbs] of byWorker) {
        expect([...dbs]).toHaveLength(1);
        expect([...dbs][0]).toMatch(new RegExp(`_w${worker}$`));
      }
      expect(new Set(r.records.map((rec) => rec.db)).size).toBe(2);
      // A worker's files share its database: each saw the rows of the files before it.
      for (const worker of byWorker.keys()) {
        const seen = r.records.filter((rec) => rec.worker === worker).map((rec) => rec.before);
        expect(seen).toEqual(seen.map((_, i) => i));
      }
      // Whichever process started it (the runner's main process or a worker), it is gone.
      for (const pid of new Set([r.pid, ...r.records.map((rec) => rec.pid)])) expect(await containersOf(pid)).toEqual([]);
    }, 180_000);
  }
});
