/**
 * The MariaDB class workload step by step: the same suite against a durable server on disk, then tmpfs,
 * then durability off, then the write-up's bigger buffer pool/redo log/IO capacity; then
 * fast-test-db's own server (migrated once, a database per worker) with 1, 2 and 4 workers.
 * Each sample is the wall time from the first worker's spawn to the last one's exit.
 */
import { spawn } from 'node:child_process';
import { bundledScript } from '../lib/bundle.js';
import { join, resolve } from 'node:path';
import { resolveServer } from '../../src/server/providers/index.js';
import { stopOwnedServer } from '../../src/server/registry.js';
import { SERVER_ENV } from '../../src/options/handoff.js';
import type { ServerInfo } from '../../src/types.js';
import { benchDirs } from '../lib/dirs.js';
import { startBenchMariadb, type BenchMariadb, type MariaVariant } from '../lib/mariadb.js';
import { row, withSpeedups, type Section } from '../lib/stats.js';
import type { SuiteConfig } from './suite.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Step {
  id: string;
  label: string;
  variant?: MariaVariant;
  workers: number;
}

export const MARIADB_CLASS_STEPS: Step[] = [
  { id: 'durable', label: 'durable, data on disk, 1 worker', variant: 'disk', workers: 1 },
  { id: 'tmpfs', label: '+ tmpfs', variant: 'tmpfs', workers: 1 },
  { id: 'nodurable', label: '+ durability off (flags)', variant: 'tmpfs-nodurable', workers: 1 },
  { id: 'big', label: '+ 512M buffer pool/redo, io-capacity 10000', variant: 'tmpfs-nodurable-big', workers: 1 },
  { id: 'ftdb-1', label: 'fast-test-db, migrated once, 1 worker', workers: 1 },
  { id: 'ftdb-2', label: 'fast-test-db, 2 workers', workers: 2 },
  { id: 'ftdb-4', label: 'fast-test-db, 4 workers', workers: 4 },
];

export interface MariadbClassesOptions {
  classes: number;
  testsPerClass: number;
  rowsPerTest: number;
  repeats: number;
  /** Step ids to run; the durable baseline always runs. */
  only?: string[];
  log: (line: string) => void;
}

export function runWorker(cfg: SuiteConfig, env: Record<string, string>): Promise<{ ms: number; statements: number }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [bundledScript('bench/mariadb-classes/suite.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...env, BENCH_MARIADB_CLASSES: JSON.stringify(cfg) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => {
      if (code !== 0) return rej(new Error(err.trim().split('\n').slice(0, 3).join(' ') || `worker exited with ${code}`));
      res(JSON.parse(out.trim().split('\n').pop()!) as { ms: number; statements: number });
    });
  });
}

/** Splits `total` classes over `workers` as evenly as whole classes allow. */
export function share(total: number, workers: number, i: number): number {
  return Math.floor(total / workers) + (i < total % workers ? 1 : 0);
}

export async function runMariadbClasses(
  opts: MariadbClassesOptions,
): Promise<{ sections: Section[]; servers: Record<string, Record<string, string>>; version?: string }> {
  const servers = new Map<MariaVariant, BenchMariadb>();
  const settings: Record<string, Record<string, string>> = {};
  const samples = new Map<string, number[]>();
  const errors = new Map<string, string>();
  const dataRoot = join(benchDirs().shm, 'ftdb');
  let library: ServerInfo | undefined;
  let nonce = 0;
  const steps = MARIADB_CLASS_STEPS.filter((s) => !opts.only || opts.only.includes(s.id) || s.id === 'durable');
  try {
    for (const s of steps) {
      if (s.variant && !servers.has(s.variant)) {
        const srv = await startBenchMariadb(s.variant);
        servers.set(s.variant, srv);
        settings[s.variant] = srv.settings;
        opts.log(
          `  mariadb-classes: ${s.variant} MariaDB ${srv.settings.version} on :${srv.info.port} (flush_log_at_trx_commit=${srv.settings.innodb_flush_log_at_trx_commit}, datadir ${srv.dataDir})`,
        );
      }
    }
    if (steps.some((s) => !s.variant)) {
      library = await resolveServer({ dataRoot, server: 'embedded' }, 'mysql');
      settings['fast-test-db'] = { tuned: String(library.tuned), version: library.version };
    }
    for (let rep = 0; rep < opts.repeats; rep++) {
      for (const s of steps) {
        if (errors.has(s.id)) continue;
        const base = { classes: opts.classes, testsPerClass: opts.testsPerClass, rowsPerTest: opts.rowsPerTest };
        const started = performance.now();
        try {
          if (s.variant) {
            const srv = servers.get(s.variant)!;
            await runWorker({ ...base, mode: 'per-class', server: srv.info, database: 'bench_classes' }, {});
          } else {
            const cacheKey = `classes-${process.pid}-${++nonce}`;
            await Promise.all(
              Array.from({ length: s.workers }, (_, i) =>
                runWorker(
                  { ...base, classes: share(opts.classes, s.workers, i), mode: 'ftdb', cacheKey },
                  {
                    TEST_TOKEN: String(i + 1),
                    FAST_TEST_DB_DATA_ROOT: dataRoot,
                    [SERVER_ENV]: JSON.stringify([library]),
                  },
                ),
              ),
            );
          }
          const ms = performance.now() - started;
          samples.set(s.id, [...(samples.get(s.id) ?? []), ms]);
          opts.log(`  mariadb-classes ${s.id} #${rep + 1}: ${(ms / 1000).toFixed(2)} s`);
        } catch (e) {
          errors.set(s.id, (e as Error).message.slice(0, 300));
          opts.log(`  mariadb-classes ${s.id}: FAILED ${(e as Error).message}`);
        }
      }
    }
  } finally {
    for (const srv of servers.values()) await srv.stop();
    if (library?.stateDir) await stopOwnedServer(library.stateDir);
  }
  const statements = opts.classes * opts.testsPerClass * (opts.rowsPerTest + 3);
  const section: Section = {
    id: 'mariadb-classes',
    title: `MariaDB: ${opts.classes} test classes x ${opts.testsPerClass} tests, each class migrating a fresh 30-table database (${statements.toLocaleString('en')} statements)`,
    unit: 'ms',
    baseline: 'durable',
    rows: steps.map((s) => row(s.id, s.label, samples.get(s.id) ?? [], errors.has(s.id) ? { error: errors.get(s.id) } : {})),
    notes: [
      'The first four rows migrate a fresh database (30 tables + seed rows) for every test class, in one process; the fast-test-db rows migrate once into a template per run, clone it per worker and reset between classes.',
      "MariaDB has the binary log off by default, so --skip-log-bin changes nothing here (it did on the write-up's MySQL 8.4). Min and max show the spread over repeats.",
    ],
  };
  const version = library?.version ?? Object.values(settings).find((x) => x.version)?.version;
  return { sections: [withSpeedups(section)], servers: settings, version };
}
