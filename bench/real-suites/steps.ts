/**
 * The real-suite shapes (`--sections real-suites`): generated suites of the shapes real apps have,
 * each run in alternated rounds on
 * - (A) the machine's already-running default server (its PostgreSQL 15 or MariaDB service), one shared
 *   database the bench creates for the leg and drops after, as an app's docker-compose server is used,
 *   the runner's default workers; skipped, with the reason in the notes, when the service does not answer;
 * - (A2) the same on a server of our own major (the embedded PostgreSQL 18 binaries fast-test-db uses),
 *   initialised and started before the rounds with default settings and data on disk, durable, as a
 *   team's compose file runs it: A2 against A is the major and the machine's service, B against A2 the rest;
 * - (A0) the default server's first run of a new clone: A with no runner caches (ts-jest's transforms,
 *   Vite's), as a fresh clone finds them;
 * - (B0) fast-test-db's first run of a new clone: no data root, no cache of ours and no runner caches;
 *   B0 against A0 is what fast-test-db adds to what a fresh clone costs anyway;
 * - (B1) the same where the user ran fast-test-db before: initdb's output is kept in the data root
 *   (one untimed run leaves it), the project has no cache of ours and no runner caches;
 * - (B) fast-test-db through its runner wrapper from the built package, second run on (the warm copy
 *   and the caches are there; the server is stopped between runs: FAST_TEST_DB_REUSE=0);
 * - (C) fast-test-db with the server kept from the run before (FAST_TEST_DB_REUSE=1), stopped with
 *   `fast-test-db stop` at the end.
 * B0, B1, B and C get data roots of their own, so that C's kept server is never B's. Each leg gives three
 * figures: the whole run, runner start to first test, and the tests' own time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { stopOwnedServer } from '../../src/server/registry.js';
import { benchDirs } from '../lib/dirs.js';
import { DIST } from '../lib/dist.js';
import { pgConnection, startBenchPostgres, type BenchPostgres } from '../lib/postgres.js';
import { row, type Section } from '../lib/stats.js';
import { SHAPES, writeShape, type Shape, type ShapeId, type ShapeScale } from './generate.js';
import { runLeg, type LegRun } from './legs.js';

const GENERATED = join(import.meta.dirname, '.generated');
const ROOT = resolve(import.meta.dirname, '../..');

/** The package as users get it, packed once per bench run from the built dist/. */
let tarball: string | undefined;
function packed(): string {
  if (tarball) return tarball;
  const dest = mkdtempSync(join(tmpdir(), 'ftdb-bench-pack-'));
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel=error', '--pack-destination', dest], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm pack failed:\n${r.stderr}`);
  tarball = join(dest, (JSON.parse(r.stdout) as Array<{ filename: string }>)[0]!.filename);
  return tarball;
}

/**
 * Installs the packed package into the suite's node_modules, unpacked as npm would (its own
 * dependencies and the ORMs, drivers and runners resolve from the repo's node_modules above).
 */
function installPackage(dir: string): void {
  const into = join(dir, 'node_modules', 'fast-test-db');
  mkdirSync(into, { recursive: true });
  const r = spawnSync('tar', ['-xzf', packed(), '-C', into, '--strip-components=1'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`unpacking ${packed()} failed:\n${r.stderr}`);
}

export type LegId = 'A' | 'A2' | 'A0' | 'B0' | 'B1' | 'B' | 'C';
export const LEG_IDS: LegId[] = ['A', 'A2', 'A0', 'B0', 'B1', 'B', 'C'];

export const LEG_LABELS: Record<LegId, string> = {
  A: "default server, already running: the machine's service (shared database)",
  A2: 'default server, already running: PostgreSQL 18 (our major), default settings, data on disk (shared database)',
  A0: "default server, already running: a new clone's first run (no runner caches)",
  B0: 'fast-test-db, first run (fresh data root and project dir, no runner caches: initdb, template)',
  B1: "fast-test-db, a new clone's first run, initdb's output kept in the data root (template)",
  B: 'fast-test-db, 2nd run (server stopped between runs)',
  C: 'fast-test-db, server kept from the run before',
};

export interface RealSuitesOptions {
  shapes: ShapeId[];
  rounds: number;
  /** Legs to run (default all); A2 runs on PostgreSQL shapes only. */
  legs?: LegId[];
  /** The small scale (a handful of files per shape): the harness checked end to end, not a measurement. */
  quick?: boolean;
  scale: Partial<Record<ShapeId, ShapeScale>>;
  log: (line: string) => void;
}

export const DEFAULT_SCALE: Record<ShapeId, ShapeScale> = {
  imports: { files: 100, modules: 24 },
  drizzle: { files: 5 },
  nest: { files: 12, modules: 10 },
  'typeorm-pg': { files: 8 },
  'typeorm-mariadb': { files: 8 },
  inserts: { files: 4, rows: 10_000, rounds: 1 },
};

export const QUICK_SCALE: Record<ShapeId, ShapeScale> = {
  imports: { files: 3, modules: 3 },
  drizzle: { files: 2 },
  nest: { files: 2, modules: 3 },
  'typeorm-pg': { files: 2 },
  'typeorm-mariadb': { files: 2 },
  inserts: { files: 2, rows: 20 },
};

/** The shapes generated so far, in the order they run. */
export const SHAPE_IDS: ShapeId[] = ['imports', 'drizzle', 'nest', 'typeorm-pg', 'typeorm-mariadb', 'inserts'];

let dbSerial = 0;

interface Database {
  url: string;
  drop: () => Promise<void>;
}

type PgAdmin = { host: string; port: number; user: string; password?: string; database: string };

async function pgDatabase(admin: PgAdmin): Promise<Database> {
  const name = `bench_rs_${process.pid}_${++dbSerial}`;
  const c = new pg.Client(admin);
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const auth = `${encodeURIComponent(admin.user)}${admin.password ? `:${encodeURIComponent(admin.password)}` : ''}`;
  return {
    url: `postgres://${auth}@${admin.host}:${admin.port}/${name}`,
    drop: async () => {
      const d = new pg.Client(admin);
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

const SERVICE_PG: PgAdmin = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' };
const SERVICE_MYSQL = { host: '127.0.0.1', port: 3306, user: 'root' };

/** A database of the bench's own on the machine's service, for one leg; dropped by the returned function. */
async function serviceDatabase(shape: Shape): Promise<Database> {
  if (shape.engine === 'postgres') return pgDatabase(SERVICE_PG);
  const name = `bench_rs_${process.pid}_${++dbSerial}`;
  const mysql = await import('mysql2/promise');
  const c = await mysql.createConnection(SERVICE_MYSQL);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return {
    url: `mysql://root@127.0.0.1:3306/${name}`,
    drop: async () => {
      const d = await mysql.createConnection(SERVICE_MYSQL);
      await d.query(`DROP DATABASE IF EXISTS ${name}`);
      await d.end();
    },
  };
}

/** Why the machine's service cannot be leg A (it is not ours: it may be absent or down), or undefined when it answers. */
async function serviceMissing(shape: Shape): Promise<string | undefined> {
  try {
    if (shape.engine === 'postgres') {
      const c = new pg.Client({ ...SERVICE_PG, connectionTimeoutMillis: 3000 });
      await c.connect();
      await c.end();
    } else {
      const mysql = await import('mysql2/promise');
      const c = await mysql.createConnection({ ...SERVICE_MYSQL, connectTimeout: 3000 });
      await c.end();
    }
    return undefined;
  } catch (e) {
    const where = shape.engine === 'postgres' ? '127.0.0.1:5432 (PostgreSQL)' : '127.0.0.1:3306 (MariaDB/MySQL)';
    return `leg A skipped: the machine's service at ${where} did not answer (${(e as Error).message})`;
  }
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

interface ShapeRun {
  shape: Shape;
  scale: ShapeScale;
  rounds: number;
  legs: LegId[];
  /** The server of our major for A2, started once for the section (PostgreSQL shapes only). */
  ours?: () => Promise<BenchPostgres>;
  log: (line: string) => void;
}

async function runShape({ shape, scale, rounds, legs: asked, ours, log }: ShapeRun): Promise<Section[]> {
  const notes: string[] = [];
  const missing = asked.includes('A') || asked.includes('A0') ? await serviceMissing(shape) : undefined;
  if (missing) {
    log(`  real-suites ${shape.id}: ${missing}`);
    notes.push(missing);
  }
  const legs = asked.filter((k) => !((k === 'A' || k === 'A0') && missing) && !(k === 'A2' && (shape.engine !== 'postgres' || !ours)));
  const dir = join(GENERATED, shape.id);
  for (const d of [dir, `${dir}.fresh`]) rmSync(d, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  writeShape(shape.id, dir, scale);
  installPackage(dir);
  const dirs = benchDirs();
  const roots = {
    B0: join(dirs.shm, `rs-${shape.id}-B0`),
    B1: join(dirs.shm, `rs-${shape.id}-B1`),
    B: join(dirs.shm, `rs-${shape.id}-B`),
    C: join(dirs.shm, `rs-${shape.id}-C`),
  };
  // Beside the project, on its disk, out of the runner's crawl of it. A new folder for every run: the
  // last run's warm copy may still be written into its own by a process that outlives the run.
  let freshSerial = 0;
  const fresh = (k: string) => {
    const d = join(`${dir}.fresh`, `${k}-${++freshSerial}`);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const runs: Record<LegId, LegRun[]> = { A: [], A2: [], A0: [], B0: [], B1: [], B: [], C: [] };
  const ftdb = (k: 'B' | 'C') =>
    runLeg(shape, dir, 'ftdb', { FAST_TEST_DB_DATA_ROOT: roots[k], FAST_TEST_DB_REUSE: k === 'C' ? '1' : '0' });
  // A new clone: no cache of ours in the project, no runner caches; B0's data root is new too.
  const ftdbFirst = async (k: 'B0' | 'B1') => {
    if (k === 'B0') {
      await stopDataRoot(roots.B0, dir);
      mkdirSync(roots.B0, { recursive: true, mode: 0o755 });
    }
    const env = { FAST_TEST_DB_DATA_ROOT: roots[k], FAST_TEST_DB_REUSE: '0', FAST_TEST_DB_CACHE_DIR: fresh('ours') };
    return runLeg(shape, dir, 'ftdb', env, { runnerCache: fresh('runner') });
  };
  const onServer = async (db: Database, runnerCache?: string) => {
    try {
      return await runLeg(shape, dir, 'plain', { APP_DATABASE_URL: db.url }, { runnerCache });
    } finally {
      await db.drop();
    }
  };
  const leg: Record<LegId, () => Promise<LegRun>> = {
    A: async () => onServer(await serviceDatabase(shape)),
    A0: async () => onServer(await serviceDatabase(shape), fresh('runner')),
    B0: () => ftdbFirst('B0'),
    B1: () => ftdbFirst('B1'),
    A2: async () => onServer(await pgDatabase(pgConnection((await ours!()).info) as PgAdmin)),
    B: () => ftdb('B'),
    C: () => ftdb('C'),
  };
  try {
    for (const r of Object.values(roots)) {
      rmSync(r, { recursive: true, force: true });
      mkdirSync(r, { recursive: true, mode: 0o755 });
    }
    // Untimed first runs, so that every timed run finds what a later run finds: the plain config's
    // fills the runner's caches; B's builds the template and saves the warm copy; B1's leaves initdb's
    // output in its data root; C's leaves its server up.
    if (legs.includes('A') || legs.includes('A2')) await (legs.includes('A') ? leg.A : leg.A2)();
    if (legs.includes('B')) await ftdb('B');
    if (legs.includes('B1')) await ftdbFirst('B1');
    if (legs.includes('C')) await ftdb('C');
    for (let round = 0; round < rounds; round++) {
      for (const k of legs) runs[k].push(await leg[k]());
      const line = (k: LegId) => {
        const r = runs[k].at(-1)!;
        return `${k} ${s(r.ms)} (first test ${s(r.firstTestMs)}, tests ${s(r.testsMs)}, ${r.passed} passed${r.failed ? `, ${r.failed} FAILED` : ''}${r.ok ? '' : ', failed'})`;
      };
      log(`  real-suites ${shape.id} #${round + 1}: ${legs.map(line).join('; ')}`);
      for (const k of legs) if (!runs[k].at(-1)!.ok) log(runs[k].at(-1)!.failure ?? '');
    }
  } finally {
    for (const r of Object.values(roots)) await stopDataRoot(r, dir);
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}.fresh`, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
  const shown = LEG_IDS.filter((k) => runs[k].length);
  const legRow = (k: LegId, pick: (r: LegRun) => number) => {
    const rs = runs[k];
    const failedRuns = rs.filter((r) => !r.ok).length;
    return row(k, LEG_LABELS[k], rs.map(pick), {
      meta: {
        passed: rs.map((r) => r.passed),
        failed: rs.map((r) => r.failed),
        failedRuns,
        ...(rs.some((r) => r.breakdown) ? { breakdown: rs.map((r) => r.breakdown) } : {}),
        ...(rs.some((r) => r.filesMs !== undefined) ? { filesMs: rs.map((r) => r.filesMs) } : {}),
        ...(rs.some((r) => r.banner) ? { banner: rs.at(-1)!.banner } : {}),
      },
      ...(failedRuns ? { note: `${failedRuns} of ${rs.length} runs had failures: no ratio` } : {}),
    });
  };
  const section = (id: string, what: string, pick: (r: LegRun) => number): Section => {
    const rows = shown.map((k) => legRow(k, pick));
    const sec: Section = {
      id: `real-suites-${shape.id}${id}`,
      title: `${shape.title}: ${what}`,
      unit: 'ms',
      baseline: rows[0]?.id,
      rows,
      notes: [
        `${scale.files} files${scale.modules ? `, ${shape.id === 'nest' ? `${scale.modules} feature modules` : `a ${scale.modules}-module graph per file`}` : ''}${scale.rows ? `, ${scale.rows} rows per batch` : ''}; ${rounds} alternated round${rounds === 1 ? '' : 's'} (${legs.join(', ')}).`,
        ...notes,
      ],
    };
    // Ratios only between legs whose every run passed: a faster failing run proves nothing.
    const passing = (r: (typeof rows)[number]) => !(r.meta?.failedRuns as number) && r.median > 0;
    const base = rows[0];
    const a2 = rows.find((r) => r.id === 'A2');
    const a0 = rows.find((r) => r.id === 'A0');
    // A first run against a first run: both start with the runner's caches cold.
    for (const first of rows.filter((r) => r.id === 'B0' || r.id === 'B1'))
      if (a0 && passing(a0) && passing(first)) first.meta = { ...first.meta, vsA0: a0.median / first.median };
    for (const r of rows) {
      if (base && passing(base) && passing(r)) r.speedup = base.median / r.median;
      // Against our own major too: what is left once the major and the machine's service are set apart.
      if (a2 && a2 !== base && passing(a2) && passing(r)) r.meta = { ...r.meta, vsA2: a2.median / r.median };
    }
    return sec;
  };
  return [
    section('', 'whole run', (r) => r.ms),
    section('-first-test', 'runner start to first test', (r) => r.firstTestMs),
    section('-tests', "tests' own time", (r) => r.testsMs),
  ];
}

export async function runRealSuites(opts: RealSuitesOptions): Promise<{ sections: Section[]; ours?: Record<string, string> }> {
  const out: Section[] = [];
  const legs = opts.legs ?? LEG_IDS;
  // Our major's default server, started on first use and kept for every PostgreSQL shape: already running, as a compose file's.
  let started: Promise<BenchPostgres> | undefined;
  const ours = legs.includes('A2') ? () => (started ??= startBenchPostgres('disk')) : undefined;
  try {
    for (const id of opts.shapes) {
      const scale = { ...(opts.quick ? QUICK_SCALE : DEFAULT_SCALE)[id], ...opts.scale[id] };
      const rounds = Math.min(opts.rounds, scale.rounds ?? opts.rounds);
      out.push(...(await runShape({ shape: SHAPES[id], scale, rounds, legs, ours, log: opts.log })));
    }
    return { sections: out, ...(started ? { ours: (await started).settings } : {}) };
  } finally {
    if (started) await (await started).stop();
    if (tarball) rmSync(resolve(tarball, '..'), { recursive: true, force: true });
    tarball = undefined;
  }
}
