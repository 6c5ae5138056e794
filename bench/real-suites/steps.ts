/**
 * The real-suite shapes (`--sections real-suites`): generated suites of the shapes real apps have,
 * each run in alternated rounds on
 * - (A) the machine's already-running default server (its PostgreSQL or MariaDB service), one shared
 *   database the bench creates for the leg and drops after, as an app's docker-compose server is used,
 *   the runner's default workers;
 * - (B) fast-test-db through its runner wrapper from the built package, second run on (the warm copy
 *   and the caches are there; the server is stopped between runs: FAST_TEST_DB_REUSE=0);
 * - (C) fast-test-db with the server kept from the run before (FAST_TEST_DB_REUSE=1), stopped with
 *   `fast-test-db stop` at the end.
 * B and C get data roots of their own, so that C's kept server is never B's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { stopOwnedServer } from '../../src/server/registry.js';
import { benchDirs } from '../lib/dirs.js';
import { DIST } from '../lib/dist.js';
import { row, type Section } from '../lib/stats.js';
import { SHAPES, writeShape, type Shape, type ShapeId, type ShapeScale } from './generate.js';
import { runLeg, type LegRun } from './legs.js';

const GENERATED = join(import.meta.dirname, '.generated');

export type LegId = 'A' | 'B0' | 'B' | 'C';
export const LEG_LABELS: Record<LegId, string> = {
  A: 'default server, already running (shared database)',
  B0: 'fast-test-db, first run (fresh data root and project dir: initdb, template)',
  B: 'fast-test-db, 2nd run (server stopped between runs)',
  C: 'fast-test-db, server kept from the run before',
};

export interface RealSuitesOptions {
  shapes: ShapeId[];
  rounds: number;
  scale: Partial<Record<ShapeId, ShapeScale>>;
  log: (line: string) => void;
}

export const DEFAULT_SCALE: Record<ShapeId, ShapeScale> = {
  imports: { files: 60, modules: 24 },
  drizzle: { files: 5 },
  'typeorm-pg': { files: 8 },
  'typeorm-mariadb': { files: 8 },
};

/** The shapes generated so far, in the order they run. */
export const SHAPE_IDS: ShapeId[] = ['imports', 'drizzle', 'typeorm-pg', 'typeorm-mariadb'];

let dbSerial = 0;

/** A database of the bench's own on the machine's service, for one leg; dropped by the returned function. */
async function serviceDatabase(shape: Shape): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_rs_${process.pid}_${++dbSerial}`;
  if (shape.engine === 'postgres') {
    const admin = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };
    const c = new pg.Client(admin);
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    return {
      url: `postgres://postgres@127.0.0.1:5432/${name}`,
      drop: async () => {
        const d = new pg.Client(admin);
        await d.connect();
        await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await d.end();
      },
    };
  }
  const mysql = await import('mysql2/promise');
  const admin = { host: '127.0.0.1', port: 3306, user: 'root' };
  const c = await mysql.createConnection(admin);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return {
    url: `mysql://root@127.0.0.1:3306/${name}`,
    drop: async () => {
      const d = await mysql.createConnection(admin);
      await d.query(`DROP DATABASE IF EXISTS ${name}`);
      await d.end();
    },
  };
}

/** Stops what a data root still runs (the CLI first, as a user would; then the registry for anything left) and removes it. */
async function stopDataRoot(dataRoot: string, cwd: string): Promise<void> {
  spawnSync(process.execPath, [join(DIST, 'cli.js'), 'stop'], {
    cwd,
    env: { ...process.env, FAST_TEST_DB_DATA_ROOT: dataRoot },
    stdio: 'ignore',
  });
  for (const user of existsSync(dataRoot) ? readdirSync(dataRoot) : [])
    for (const srv of readdirSync(join(dataRoot, user))) await stopOwnedServer(join(dataRoot, user, srv)).catch(() => undefined);
  rmSync(dataRoot, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function runShape(shape: Shape, scale: ShapeScale, rounds: number, log: (line: string) => void): Promise<Section[]> {
  const dir = join(GENERATED, shape.id);
  rmSync(dir, { recursive: true, force: true });
  writeShape(shape.id, dir, scale);
  const dirs = benchDirs();
  const roots = { B: join(dirs.shm, `rs-${shape.id}-B`), C: join(dirs.shm, `rs-${shape.id}-C`) };
  const runs: Record<LegId, LegRun[]> = { A: [], B0: [], B: [], C: [] };
  try {
    for (const r of Object.values(roots)) {
      rmSync(r, { recursive: true, force: true });
      mkdirSync(r, { recursive: true, mode: 0o755 });
    }
    // Untimed first runs: B's builds the template and saves the warm copy, C's leaves its server up.
    const warmB = await runLeg(shape, dir, 'ftdb', { FAST_TEST_DB_DATA_ROOT: roots.B, FAST_TEST_DB_REUSE: '0' });
    const warmC = await runLeg(shape, dir, 'ftdb', { FAST_TEST_DB_DATA_ROOT: roots.C, FAST_TEST_DB_REUSE: '1' });
    // B's first run is the first run of a new clone: no data root, no caches in the project dir.
    runs.B0.push(warmB);
    log(`  real-suites ${shape.id}: first runs ${s(warmB.ms)} / ${s(warmC.ms)} (${warmB.passed} passed)`);
    if (!warmB.ok) log(warmB.failure ?? '');
    for (let round = 0; round < rounds; round++) {
      const db = await serviceDatabase(shape);
      try {
        runs.A.push(await runLeg(shape, dir, 'plain', { APP_DATABASE_URL: db.url }));
      } finally {
        await db.drop();
      }
      runs.B.push(await runLeg(shape, dir, 'ftdb', { FAST_TEST_DB_DATA_ROOT: roots.B, FAST_TEST_DB_REUSE: '0' }));
      runs.C.push(await runLeg(shape, dir, 'ftdb', { FAST_TEST_DB_DATA_ROOT: roots.C, FAST_TEST_DB_REUSE: '1' }));
      const line = (k: LegId) => {
        const r = runs[k].at(-1)!;
        return `${k} ${s(r.ms)} (tests ${s(r.testsMs)}, ${r.passed} passed${r.failed ? `, ${r.failed} FAILED` : ''}${r.ok ? '' : ', failed'})`;
      };
      log(`  real-suites ${shape.id} #${round + 1}: ${line('A')}; ${line('B')}; ${line('C')}`);
      for (const k of ['A', 'B', 'C'] as const) if (!runs[k].at(-1)!.ok) log(runs[k].at(-1)!.failure ?? '');
    }
  } finally {
    await stopDataRoot(roots.B, dir);
    await stopDataRoot(roots.C, dir);
    rmSync(dir, { recursive: true, force: true });
  }
  const legRow = (k: LegId, pick: (r: LegRun) => number) => {
    const rs = runs[k];
    const failedRuns = rs.filter((r) => !r.ok).length;
    return row(k, LEG_LABELS[k], rs.map(pick), {
      meta: {
        passed: rs.map((r) => r.passed),
        failed: rs.map((r) => r.failed),
        failedRuns,
        ...(rs.some((r) => r.breakdown) ? { breakdown: rs.map((r) => r.breakdown) } : {}),
        ...(rs.some((r) => r.banner) ? { banner: rs.at(-1)!.banner } : {}),
      },
      ...(failedRuns ? { note: `${failedRuns} of ${rs.length} runs had failures: no ratio` } : {}),
    });
  };
  const section = (id: string, what: string, pick: (r: LegRun) => number): Section => {
    const sec: Section = {
      id: `real-suites-${shape.id}${id}`,
      title: `${shape.title}: ${what}`,
      unit: 'ms',
      baseline: 'A',
      rows: (['A', 'B0', 'B', 'C'] as const).map((k) => legRow(k, pick)),
      notes: [
        `${scale.files} files${scale.modules ? `, a ${scale.modules}-module graph per file` : ''}; ${rounds} alternated rounds (A, B, C).`,
      ],
    };
    // Ratios only between legs whose every run passed: a faster failing run proves nothing.
    const base = sec.rows[0]!;
    const baseOk = !(base.meta?.failedRuns as number);
    for (const r of sec.rows) if (baseOk && !(r.meta?.failedRuns as number) && r.median > 0) r.speedup = base.median / r.median;
    return sec;
  };
  return [section('', 'whole run', (r) => r.ms), section('-tests', "tests' own time", (r) => r.testsMs)];
}

export async function runRealSuites(opts: RealSuitesOptions): Promise<{ sections: Section[] }> {
  const out: Section[] = [];
  for (const id of opts.shapes) {
    const scale = { ...DEFAULT_SCALE[id], ...opts.scale[id] };
    out.push(...(await runShape(SHAPES[id], scale, opts.rounds, opts.log)));
  }
  return { sections: out };
}
