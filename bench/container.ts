/**
 * The container path beside the embedded one, on the same machine and the same tiny schema: the
 * start to a first usable database (server start, template build, clone), a clone from the
 * template on the running server, reset() with 3 of 3 tables dirty, and the cost of one INSERT round trip. Needs a
 * Docker engine and FAST_TEST_DB_IMAGE (`eval "$(.ci/docker)"` builds one here).
 *
 *   npx tsx bench/container.ts [--samples N] [--rows N]
 */
import { mkdtempSync } from 'node:fs';
import pg from 'pg';
import { createTestDatabase } from '../src/index.js';
import { stopOwnedContainers } from '../src/server/providers/container.js';
import type { ServerMode } from '../src/types.js';
import { privateDataRoot, removeDataRoot } from '../test/core/helpers.js';
import { row, withSpeedups, type Row, type Section } from './lib/stats.js';

export interface ContainerBenchOptions {
  /** Samples of the millisecond figures (clone, reset). */
  samples: number;
  /** INSERTs per insert sample. */
  rows: number;
  log: (line: string) => void;
}

const migrate = async (url: string) => {
  const c = new pg.Client(url);
  await c.connect();
  await c.query(
    'CREATE TABLE a (id serial PRIMARY KEY, v text); CREATE TABLE b (id serial PRIMARY KEY, v text); CREATE TABLE c (id serial PRIMARY KEY, v text)',
  );
  await c.end();
};

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
}

async function measure(
  server: ServerMode,
  { samples, rows }: ContainerBenchOptions,
): Promise<Record<'start' | 'clone' | 'reset' | 'insert', number[]>> {
  const dataRoot = privateDataRoot(`bench-${server}`);
  const base = { server, dataRoot, migrate, cacheKey: `bench-container-${Date.now()}`, cacheDir: mkdtempSync('/tmp/ftdb-bench-cache-') };
  try {
    const [start, first] = await timed(() => createTestDatabase({ ...base, worker: 'start' }));
    // Later clones on the same server, as a runner's workers get them: an embedded server is joined
    // through the registry; a container's is reached by its URL, as a runner hands it over.
    const { engine, user, password, host, port, adminDatabase } = first.server;
    const admin = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${adminDatabase}`;
    const again = server === 'container' ? { ...base, server: 'external' as const, url: admin } : base;
    if (engine !== 'postgres') throw new Error('this bench measures PostgreSQL');
    const clone: number[] = [];
    for (let i = 0; i < samples; i++) {
      const [ms, db] = await timed(() => createTestDatabase({ ...again, worker: `clone${i}` }));
      clone.push(ms);
      await db.destroy();
    }
    const c = new pg.Client(first.url);
    await c.connect();
    const reset: number[] = [];
    await first.reset();
    for (let i = 0; i < samples; i++) {
      await c.query("INSERT INTO a (v) VALUES ('x'); INSERT INTO b (v) VALUES ('x'); INSERT INTO c (v) VALUES ('x')");
      reset.push((await timed(() => first.reset()))[0]);
    }
    const insert: number[] = [];
    for (let s = 0; s < 3; s++) {
      const [ms] = await timed(async () => {
        for (let i = 0; i < rows; i++) await c.query('INSERT INTO a (v) VALUES ($1)', [`row ${i}`]);
      });
      insert.push((ms * 1000) / rows);
    }
    await c.end();
    await first.destroy();
    return { start: [start], clone, reset, insert };
  } finally {
    await stopOwnedContainers();
    await removeDataRoot(dataRoot);
  }
}

export async function runContainer(opts: ContainerBenchOptions): Promise<{ sections: Section[] }> {
  // Ryuk's image comes from Docker Hub; the library removes its containers itself.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  opts.log('container: embedded PostgreSQL first, then the container');
  const embedded = await measure('embedded', opts);
  const container = await measure('container', opts);
  const image = process.env.FAST_TEST_DB_IMAGE ?? 'postgres:18-alpine';
  const sections: Section[] = (
    [
      ['start', 'start to a first database (server, template, clone)', 'ms'],
      ['clone', 'a clone from the template', 'ms'],
      ['reset', 'reset(), 3 of 3 tables dirty', 'ms'],
      ['insert', 'one INSERT round trip', 'us'],
    ] as const
  ).map(([id, title, unit]) => ({
    id: `container-${id}`,
    title: `Container beside embedded: ${title}`,
    unit,
    baseline: 'embedded',
    rows: [row('embedded', 'embedded', embedded[id]), row('container', `container (${image})`, container[id])] as Row[],
    notes: [],
  }));
  return { sections: sections.map(withSpeedups) };
}
