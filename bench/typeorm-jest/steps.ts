/**
 * The TypeORM insert workload step by step: each setup is a whole Jest run of the same four files (70,000 sequential
 * inserts at full scale), timed from Jest's start to its exit. Steps 1-6 follow the write-up; step 7
 * is fast-test-db. Repeats go round-robin over the steps, so that a burst of load on a shared
 * machine lands on every step alike rather than on one.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { stopOwnedServer } from '../../src/server/registry.js';
import { benchDirs } from '../lib/dirs.js';
import { runJest, type JestRunSpec } from '../lib/jest.js';
import { pgConnection, startBenchPostgres, type BenchPostgres, type PgVariant } from '../lib/postgres.js';
import { row, withSpeedups, type Row, type Section } from '../lib/stats.js';
import type { TypeormJestEnv } from './store.js';

interface Step {
  id: string;
  label: string;
  server?: PgVariant;
  spec: Omit<JestRunSpec, 'env'> & { env: Omit<TypeormJestEnv, 'pg' | 'rows'> };
  alternative?: boolean;
}

const perFile = { schema: 'per-file', unlogged: false } as const;

export const TYPEORM_JEST_STEPS: Step[] = [
  {
    id: 'before',
    label: '1. before: disk, save(), ts-jest, in band',
    server: 'disk',
    spec: { transformer: 'ts-jest', workers: 1, env: { store: 'typeorm', insert: 'save', ...perFile } },
  },
  {
    id: 'insert',
    label: '2. + insert()',
    server: 'disk',
    spec: { transformer: 'ts-jest', workers: 1, env: { store: 'typeorm', insert: 'insert', ...perFile } },
  },
  {
    id: 'swc',
    label: '3. + @swc/jest',
    server: 'disk',
    spec: { transformer: 'swc', workers: 1, env: { store: 'typeorm', insert: 'insert', ...perFile } },
  },
  {
    id: 'tmpfs',
    label: '4. + tmpfs',
    server: 'tmpfs',
    spec: { transformer: 'swc', workers: 1, env: { store: 'typeorm', insert: 'insert', ...perFile } },
  },
  {
    id: 'nodurable',
    label: '5. + durability off',
    server: 'tmpfs-nodurable',
    spec: { transformer: 'swc', workers: 1, env: { store: 'typeorm', insert: 'insert', ...perFile } },
  },
  {
    id: 'unlogged',
    label: '6. + UNLOGGED',
    server: 'tmpfs-nodurable',
    spec: { transformer: 'swc', workers: 1, env: { store: 'typeorm', insert: 'insert', schema: 'per-file', unlogged: true } },
  },
  {
    id: 'ftdb',
    label: '7. fast-test-db: fastInsert, migrated once, 2 workers',
    spec: { transformer: 'swc', workers: 2, env: { store: 'ftdb', insert: 'fastInsert', ...perFile } },
  },
  // What a user would pick instead, on the same workload.
  {
    id: 'pglite',
    label: 'PGlite in process (raw SQL, no ORM driver)',
    alternative: true,
    spec: { transformer: 'swc', workers: 1, env: { store: 'pglite', insert: 'sql', ...perFile } },
  },
  {
    id: 'pg-mem',
    label: 'pg-mem through TypeORM, insert()',
    alternative: true,
    spec: { transformer: 'swc', workers: 1, env: { store: 'pg-mem', insert: 'insert', ...perFile } },
  },
  {
    id: 'truncate',
    label: 'default PostgreSQL on disk, TRUNCATE per file',
    server: 'disk',
    alternative: true,
    spec: { transformer: 'swc', workers: 1, env: { store: 'typeorm', insert: 'insert', schema: 'truncate', unlogged: false } },
  },
];

export interface TypeormJestOptions {
  rows: number;
  repeats: number;
  only?: string[];
  log: (line: string) => void;
}

export interface TypeormJestOutcome {
  sections: Section[];
  servers: Record<string, Record<string, string>>;
}

export async function runTypeormJest(opts: TypeormJestOptions): Promise<TypeormJestOutcome> {
  const steps = TYPEORM_JEST_STEPS.filter((s) => !opts.only || opts.only.includes(s.id) || s.id === 'before');
  const servers = new Map<PgVariant, BenchPostgres>();
  const samples = new Map<string, number[]>();
  const errors = new Map<string, string>();
  const settings: Record<string, Record<string, string>> = {};
  try {
    for (const s of steps) {
      if (s.server && !servers.has(s.server)) {
        const srv = await startBenchPostgres(s.server);
        servers.set(s.server, srv);
        settings[s.server] = srv.settings;
        opts.log(
          `  typeorm-jest: ${s.server} PostgreSQL ${srv.info.version} on :${srv.info.port} (fsync=${srv.settings.fsync}, data ${srv.dataDir})`,
        );
      }
    }
    // The library's own server for step 7 lives under a data root of the bench's, started and
    // stopped inside each Jest run: its cold start is part of the step's time.
    const ftdbRoot = join(benchDirs().shm, 'ftdb');
    for (let rep = 0; rep < opts.repeats; rep++) {
      for (const s of steps) {
        if (errors.has(s.id)) continue;
        const srv = s.server ? servers.get(s.server) : undefined;
        const env: TypeormJestEnv = { ...s.spec.env, rows: opts.rows, ...(srv ? { pg: pgConnection(srv.info) } : {}) };
        // PGlite loads its WASM through import(), which Jest's sandbox allows only with VM modules on.
        const nodeOptions: Record<string, string> =
          s.id === 'pglite' ? { NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') } : {};
        const result = await runJest({ ...s.spec, env, extraEnv: { FAST_TEST_DB_DATA_ROOT: ftdbRoot, ...nodeOptions } });
        // The server step 7 started stops once Jest has gone; wait for it, so it does not overlap the next run.
        if (s.spec.env.store === 'ftdb') await stopServersUnder(ftdbRoot);
        if (!result.ok) {
          errors.set(s.id, summarizeFailure(result.failure ?? 'failed'));
          opts.log(`  typeorm-jest ${s.id}: FAILED ${errors.get(s.id)}`);
          continue;
        }
        samples.set(s.id, [...(samples.get(s.id) ?? []), result.ms]);
        opts.log(`  typeorm-jest ${s.id} #${rep + 1}: ${(result.ms / 1000).toFixed(2)} s (${result.tests.passed} tests passed)`);
      }
    }
  } finally {
    for (const srv of servers.values()) await srv.stop();
  }
  const toRow = (s: Step): Row => {
    const err = errors.get(s.id);
    return row(s.id, s.label, samples.get(s.id) ?? [], err ? { error: err } : {});
  };
  const total = opts.rows * 7;
  const main: Section = {
    id: 'typeorm-jest',
    title: `TypeORM on PostgreSQL: ${total.toLocaleString('en')} sequential inserts in 4 Jest files, each setup a whole Jest run`,
    unit: 'ms',
    baseline: 'before',
    rows: steps.filter((s) => !s.alternative).map(toRow),
    notes: [
      'Each row is a whole Jest run from start to exit, with a cold transform cache (as on CI). Servers for steps 1-6 are started before the run; step 7 starts its own server and builds its template inside the run.',
      'Steps 1-6 build the schema in every file (synchronize with dropSchema), as the write-up did; step 7 builds it once into a template and clones it per file.',
    ],
  };
  const alt: Section = {
    id: 'typeorm-jest-alternatives',
    title: 'What a user would pick instead (same workload)',
    unit: 'ms',
    baseline: 'before',
    rows: [
      toRow(steps[0]!),
      ...steps.filter((s) => s.alternative).map(toRow),
      ...(steps.some((s) => s.id === 'ftdb') ? [toRow(steps.find((s) => s.id === 'ftdb')!)] : []),
    ],
    notes: [
      'PGlite has no TypeORM driver installed here, so its row runs the statement insert() sends through PGlite directly: it carries no ORM cost at all. It starts one PGlite per file, as separate test files would.',
      ...(steps.some((s) => s.id === 'pg-mem') ? [await pgMemPointProbe()] : []),
      'The TRUNCATE row is what many projects do instead of per-file migrations: schema built once, every file empties the table first, on the same default PostgreSQL as the "before".',
    ],
  };
  return { sections: [withSpeedups(main), withSpeedups(alt)], servers: settings };
}

async function stopServersUnder(root: string): Promise<void> {
  if (!existsSync(root)) return;
  for (const user of readdirSync(root)) for (const dir of readdirSync(join(root, user))) await stopOwnedServer(join(root, user, dir));
}

/** pg-mem without any ORM: does a plain INSERT into a table named `point` work? */
async function pgMemPointProbe(): Promise<string> {
  const { newDb } = await import('pg-mem');
  const db = newDb();
  try {
    db.public.none(`CREATE TABLE point (id serial PRIMARY KEY, amount integer NOT NULL)`);
    db.public.many(`INSERT INTO point (amount) VALUES (1) RETURNING id`);
    return 'pg-mem without an ORM: INSERT INTO point works.';
  } catch (e) {
    return `pg-mem without an ORM: CREATE TABLE point works, then INSERT INTO point fails with "${(e as Error).message.split('\n')[0]}" (point is also a built-in type name).`;
  }
}

/** The first lines of a failed run that say why. */
function summarizeFailure(out: string): string {
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const at = lines.findIndex((l) => /Error|error:|failed|Cannot|not supported|ENOENT/.test(l) && !l.startsWith('at '));
  if (at < 0) return (lines[0] ?? 'failed').slice(0, 300);
  // Jest's "● Test suite failed to run" says nothing by itself: the lines after it are the cause.
  return lines
    .slice(at, at + 4)
    .filter((l) => !l.startsWith('at '))
    .join(' / ')
    .slice(0, 300);
}
