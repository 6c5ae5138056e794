/**
 * npm run bench / npm run bench:quick: the workloads step by step and the core's figures in one run.
 * Prints a table (ratios first, medians of the repeats), writes bench/results/<date>-<name>.json with
 * machine info, versions and every sample, and an SVG chart next to it.
 *
 *   tsx bench/run.ts [--quick] [--repeats N] [--rows N] [--sections typeorm-jest,mariadb-classes,core,orm,small-suite,parallel,container,peers,real-suites]
 *                    [--shapes imports,drizzle,nest,typeorm-pg,typeorm-mariadb] [--legs A,A2,A0,B0,B1,B,C]
 *                    [--steps id,id] [--name NAME] [--out DIR] [--readme] [--small-files N]
 *
 * --repeats defaults to 3 (quick: 1 for the whole-run steps of the workloads, 3 for the core's figures).
 * --rows is rows per 10,000 of the TypeORM workload (full: 10000, i.e. 70,000 inserts).
 * --steps limits the TypeORM and MariaDB workloads to those step ids (their baselines always run).
 * --small-files is the small suite's number of test files (default 50); small-suite and parallel run only when named.
 * --shapes limits the real-suites section to those shapes, --legs to those legs; real-suites runs only when named
 * (quick: a few files per shape, one round).
 * --readme rewrites bench/README.md with this run's table and chart.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runContainer } from './container.js';
import { runCore } from './core.js';
import { benchDirs } from './lib/dirs.js';
import { ensureBuilt } from './lib/dist.js';
import { gitCommit, machineInfo } from './lib/machine.js';
import { runOrmBenches } from './lib/orm.js';
import { fullTable, machineLine, writeResult, type BenchResult } from './lib/report.js';
import type { Section } from './lib/stats.js';
import { runTypeormJest } from './typeorm-jest/steps.js';
import { runMariadbClasses, MARIADB_CLASS_STEPS } from './mariadb-classes/steps.js';
import { runSmallSuite } from './small-suite/steps.js';
import { runParallel } from './parallel.js';
import { runPeers } from './peers.js';
import { LEG_IDS, runRealSuites, SHAPE_IDS } from './real-suites/steps.js';
import { WORKER_ENV_VARS } from '../src/options/workers.js';

const ROOT = resolve(import.meta.dirname, '..');

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    repeats: { type: 'string' },
    rows: { type: 'string' },
    sections: { type: 'string' },
    steps: { type: 'string' },
    name: { type: 'string' },
    out: { type: 'string' },
    readme: { type: 'boolean', default: false },
    'small-files': { type: 'string' },
    shapes: { type: 'string' },
    legs: { type: 'string' },
  },
});

const quick = args.quick!;
// Quick runs keep under 2 minutes by running each whole-run step once; the core's figures keep 3.
const repeats = Number(args.repeats ?? (quick ? 1 : 3));
const coreRepeats = Number(args.repeats ?? 3);
const rows = Number(args.rows ?? (quick ? 40 : 10_000));
const sections = new Set(
  (args.sections ?? (quick ? 'typeorm-jest,mariadb-classes,core' : 'typeorm-jest,mariadb-classes,core,orm')).split(','),
);
const steps = args.steps?.split(',');
const name = args.name ?? (quick ? 'quick' : 'full');
const outDir = resolve(args.out ?? join(ROOT, 'bench', 'results'));
const log = (line: string) => process.stderr.write(line + '\n');

if (!(repeats >= 1) || !(rows >= 1)) throw new Error('--repeats and --rows must be positive numbers');

// Started from inside a test runner (our own test does), the bench would pass that runner's worker id
// on to every process it starts, and they would all claim one database: it hands out its own ids.
for (const name of WORKER_ENV_VARS) delete process.env[name];

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100);
  const date = new Date().toISOString();
  const dirs = benchDirs();
  log(`fast-test-db bench (${name}): ${rows} rows per 10k, ${repeats} repeats, sections ${[...sections].join(',')}`);
  ensureBuilt(log);
  log(`  disk dir ${dirs.disk}${dirs.diskIsTmpfs ? ' (tmpfs! durable figures will be too fast)' : ''}, tmpfs dir ${dirs.shm}`);
  const out: Section[] = [];
  const servers: Record<string, string | undefined> = {};
  const serverSettings: Record<string, unknown> = {};

  if (sections.has('typeorm-jest')) {
    const r = await runTypeormJest({ rows, repeats, only: steps, log });
    out.push(...r.sections);
    serverSettings['typeorm-jest'] = r.servers;
    servers.postgres = r.servers.disk?.server_version;
  }
  if (sections.has('mariadb-classes')) {
    const classSteps = steps ? MARIADB_CLASS_STEPS.filter((s) => steps.includes(s.id)).map((s) => s.id) : undefined;
    const r = await runMariadbClasses({
      // Enough work per worker that starting a worker process does not dominate.
      classes: quick ? 4 : 32,
      testsPerClass: quick ? 3 : 10,
      rowsPerTest: quick ? 10 : 60,
      repeats,
      only: classSteps,
      log,
    });
    out.push(...r.sections);
    serverSettings['mariadb-classes'] = r.servers;
    servers.mariadb = r.version;
  }
  if (sections.has('core')) {
    const r = await runCore({ repeats: coreRepeats, samples: quick ? 5 : 20, insertRows: quick ? 500 : 5000, log });
    out.push(...r.sections);
    servers.postgres ??= r.version;
  }
  if (sections.has('small-suite')) {
    const r = await runSmallSuite({ files: Number(args['small-files'] ?? 50), workers: 2, repeats, log });
    out.push(...r.sections);
    serverSettings['small-suite'] = r.servers;
  }
  if (sections.has('parallel')) {
    const r = await runParallel({ classes: quick ? 8 : 32, testsPerClass: quick ? 5 : 10, rowsPerTest: quick ? 30 : 60, repeats, log });
    out.push(...r.sections);
    servers.mariadb ??= r.version;
  }
  if (sections.has('peers')) {
    const r = await runPeers({ starts: quick ? 3 : 10, resets: quick ? 50 : 300, rows: quick ? 1000 : 5000, rounds: quick ? 1 : 3, log });
    out.push(...r.sections);
    serverSettings.peers = r.versions;
  }
  if (sections.has('real-suites')) {
    const shapes = (args.shapes?.split(',') ?? SHAPE_IDS) as typeof SHAPE_IDS;
    const legs = (args.legs?.split(',') ?? LEG_IDS) as typeof LEG_IDS;
    for (const x of shapes) if (!SHAPE_IDS.includes(x)) throw new Error(`--shapes: no shape ${x} (${SHAPE_IDS.join(', ')})`);
    for (const x of legs) if (!LEG_IDS.includes(x)) throw new Error(`--legs: no leg ${x} (${LEG_IDS.join(', ')})`);
    const r = await runRealSuites({ shapes, rounds: repeats, legs, quick, scale: {}, log });
    out.push(...r.sections);
    if (r.ours) serverSettings['real-suites'] = { A2: r.ours };
  }
  // Needs a Docker engine and an image (eval "$(.ci/docker)"): asked for by name only.
  if (sections.has('container')) out.push(...(await runContainer({ samples: quick ? 5 : 20, rows: quick ? 100 : 500, log })).sections);
  // The ORM benches run in their quick mode: their full mode alone would take longer than the rest.
  if (sections.has('orm')) out.push(await runOrmBenches({ quick: true, log }));

  const machine = machineInfo(servers);
  machine.loadavg.start = loadAtStart;
  machine.loadavg.end = loadavg().map((x) => Math.round(x * 100) / 100);
  const result: BenchResult & { serverSettings: unknown; dirs: unknown } = {
    name,
    date,
    quick,
    scale: { rowsPerFile: rows, repeats },
    commit: gitCommit(),
    machine,
    durationMs: Math.round(performance.now() - started),
    sections: out,
    serverSettings,
    dirs: { diskIsTmpfs: dirs.diskIsTmpfs, shmIsTmpfs: dirs.shmIsTmpfs },
  };
  const files = writeResult(result, outDir);
  const table = fullTable(result);
  process.stdout.write(table + '\n');
  process.stdout.write(
    `\nwritten ${relative(process.cwd(), files.json)} and ${relative(process.cwd(), files.svg)} in ${(result.durationMs / 1000).toFixed(0)} s\n`,
  );
  if (args.readme) {
    const readme = join(ROOT, 'bench', 'README.md');
    // What follows the marker is written by hand (what each run's figures mean) and survives.
    const old = existsSync(readme) ? readFileSync(readme, 'utf8') : '';
    const kept = old.includes(BY_HAND) ? old.slice(old.indexOf(BY_HAND)) : `${BY_HAND}\n`;
    writeFileSync(readme, `${readmeFragment(result, relative(join(ROOT, 'bench'), files.svg), table)}\n${kept}`);
    process.stdout.write(`written ${relative(process.cwd(), readme)}\n`);
  }
}

const BY_HAND = '<!-- Written by hand from here on: `--readme` keeps it. -->';

function readmeFragment(r: BenchResult, svg: string, table: string): string {
  return `<!-- Generated by \`npm run bench -- --readme\` (bench/run.ts) down to the marker below; edit the harness for this part. -->
## Benchmarks

![benchmark chart](${svg})

Measured on ${machineLine(r.machine)}. This machine was shared with other work while it ran, so absolute
times move from run to run: read the ratios ("vs baseline", how many times faster than the first row of
each table) first. Every sample is in [${basename(svg, '.svg')}.json](results/${basename(svg, '.svg')}.json).

${table.split('\n').slice(1).join('\n')}
Reproduce: \`npm run bench\` (about ${Math.round(r.durationMs / 60_000)} minutes here) or \`npm run bench:quick\`
(a tiny scale, under 2 minutes). Options: \`--rows N\` (rows per 10,000 of the TypeORM workload),
\`--repeats N\`, \`--sections typeorm-jest,mariadb-classes,core,orm,small-suite,parallel,container,peers,real-suites\`, \`--steps id,...\`, \`--small-files N\`.

How each figure is taken:
- **TypeORM on PostgreSQL** (\`typeorm-jest\`): four Jest files insert \`Point\` rows one at a time
  (10k, 2x10k, 3x10k, and 10k with Promise.all), each file opening its own connection. Every row of the
  table is a separate whole Jest run, timed from start to exit, with a cold transform cache. The
  "before" is a PostgreSQL the bench initialises on disk with default settings. Each step adds one change.
- **MariaDB test classes** (\`mariadb-classes\`): test classes that each migrate a fresh 30-table
  database and then run single-row writes, against the durable server, then tmpfs, then durability
  flags and larger buffer pool, redo log and IO capacity; then fast-test-db's server with 1, 2 and 4 worker processes.
- **Core**: from a fresh process to the first query: with no server running and the caches a project
  keeps after one run, once with the migrations changed (the template is built) and once with nothing
  changed (the warm copy); and with the server up and the template cached. \`CREATE DATABASE ... TEMPLATE\`
  of a 30-table schema by strategy; \`reset()\` with 3 of 30 tables dirty; \`recreate()\` against
  drop-then-clone; per-row INSERT on a durable server against the tuned one.
- **Small suite** (\`small-suite\`, run only when named): 50 Vitest files (forks, 2 workers), each
  building a small app module (a 3,000-product catalog, two services over a pg pool) and running 8
  queries. Whole run and spawn-to-first-test (the earliest wall clock any file's first test wrote
  down), on a default PostgreSQL on disk started before the timed run (the suite's global setup
  makes a database per worker, each file TRUNCATEs), and on fast-test-db: first run (no server, no
  template, no caches), second run (the server starts again from the warm copy), and a run with
  FAST_TEST_DB_REUSE=1 (server and template already up).
- **Parallel efficiency** (\`parallel\`, run only when named): the MariaDB class workload with 1 and 2
  worker processes on fast-test-db's server, with the CPU seconds of the runner, the workers and the
  server from /proc; the 2-worker wall time is set against total CPU seconds / cores, the fastest
  those cores allow.
- **Peers** (\`peers\`): fast-test-db beside what a user would pick instead, legs alternated in one
  run: a PostgreSQL tuned by hand on tmpfs, the machine's durable service and PGlite. Start to the
  first query with the server up, each sample a fresh process (bench/lib/start-probe.mjs and
  peer-probe.mjs, plain JavaScript): with no module loader, as a Vitest worker loads a package from
  node_modules; the same with the imports counted; and under tsx's loader. Back to a clean database
  (reset(), withRollback, BEGIN/ROLLBACK by hand, interleaved sample by sample), and the single-row
  INSERT against pgbench and a bare wire-protocol client (the floor of any Node client).
- **Real-suite shapes** (\`real-suites\`, run only when named; \`--shapes\` picks some, \`--legs\` some legs):
  suites generated into bench/real-suites/.generated (no app copied): an import-heavy Vitest suite
  (100 files, each loading a 340 KB module graph, 2 queries through pg), Drizzle + postgres.js in
  Vitest (50 tests in 5 files, BEGIN/ROLLBACK per test on one connection), a NestJS-style e2e suite
  under Jest and ts-jest (12 files, each building a 10-module app graph with TypeORM repositories in
  beforeAll and calling it over HTTP), TypeORM with \`synchronize\` per file under Jest (8 files x 8
  tests) on PostgreSQL and on MariaDB, and the seed's 70,000 TypeORM save() inserts in 4 files in
  band (one round). Legs alternated per round: (A) the machine's running PostgreSQL 15 or MariaDB
  service, one shared database per leg, the runner's default workers; (A2) the same on a PostgreSQL
  18 of our own (the embedded binaries, default settings, data on disk), to set the major apart;
  (A0) leg A as a new clone's first run (no runner caches: ts-jest's transform cache, Vite's);
  (B0) fast-test-db's first run of a new clone (no data root, no cache of ours, no runner caches;
  B0 against A0 is what fast-test-db adds to a new clone's first run); (B1) the same where the user
  ran fast-test-db before (initdb's output kept in the data root); (B) fast-test-db through its runner wrapper from
  dist/, second run on, server stopped between runs (FAST_TEST_DB_REUSE=0); (C) the server kept from
  the run before (FAST_TEST_DB_REUSE=1). Whole run (spawn to exit), runner start to first test (the
  earliest wall clock a file's first test wrote), the tests' own time (Vitest's "tests", the sum of
  Jest's per-test durations) and pass/fail counts; a leg with a failure gets no ratio.
`;
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error)?.stack ?? e}\n`);
  process.exitCode = 1;
});
