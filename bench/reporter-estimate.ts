/**
 * Checks the reporters' closing line against a measured run: the same generated Vitest suite on
 * the machine's default, durable PostgreSQL service (127.0.0.1:5432, already running) and on
 * fast-test-db with the reporters, legs alternated. The line gives the database's share of the run
 * (src/reporters/gain.ts); beside it, what the default server measurably cost more, as the
 * difference of Vitest's "tests" time between the two legs. Two shapes: each test commits its
 * inserts, and each test runs reads in BEGIN/ROLLBACK. How far apart those two are is why the line
 * gives no fixed durable/tuned factor.
 *
 *   npm run build && npx tsx bench/reporter-estimate.ts [--rounds 3]
 *
 * Needs the PostgreSQL service; creates one database there and drops it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import pg from 'pg';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const SERVICE = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;

const SHAPES = {
  commits: `for (let q = 0; q < 20; q++) await sql\`INSERT INTO t (v) VALUES (\${q})\`;
    await sql\`SELECT count(*) FROM t\`;`,
  rollback: `await sql\`BEGIN\`;
    for (let q = 0; q < 20; q++) await sql\`SELECT \${q}::int AS v\`;
    await sql\`ROLLBACK\`;`,
} as const;

function writeSuite(dir: string, shape: keyof typeof SHAPES): void {
  mkdirSync(join(dir, 'tests'), { recursive: true });
  for (let i = 1; i <= 8; i++)
    writeFileSync(
      join(dir, 'tests', `f${i}.test.js`),
      `import postgres from 'postgres';
import { afterAll, beforeAll, test } from 'vitest';
const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
beforeAll(() => sql\`CREATE TABLE IF NOT EXISTS t (id serial PRIMARY KEY, v int)\`);
afterAll(() => sql.end());
for (let n = 0; n < 10; n++) test('t' + n, async () => {
    ${SHAPES[shape]}
});
`,
    );
  const test = "include: ['tests/*.test.js'], pool: 'forks', fileParallelism: false";
  writeFileSync(join(dir, 'default.config.js'), `export default { test: { ${test} } };\n`);
  writeFileSync(
    join(dir, 'ftdb.config.js'),
    `import { withFastTestDb } from ${JSON.stringify(join(DIST, 'vitest.js'))};
import Reporter from ${JSON.stringify(join(DIST, 'reporters/vitest.js'))};
export default withFastTestDb({ test: { ${test},
  reporters: ['default', new Reporter({ historyFile: false, outputFile: process.env.REPORT_FILE })],
  setupFiles: [${JSON.stringify(join(DIST, 'reporters/vitest-setup.js'))}] } },
  { engine: 'postgres', cacheKey: 'reporter-estimate-v1', migrate: async () => {} });
`,
  );
}

function runVitest(dir: string, config: string, env: NodeJS.ProcessEnv): { wallMs: number; testsMs: number; out: string } {
  const t = performance.now();
  const p = spawnSync(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  const wallMs = performance.now() - t;
  const out = p.stdout + p.stderr;
  if (p.status !== 0) throw new Error(`vitest failed in ${dir}:\n${out.slice(-3000)}`);
  const m = /tests ([\d.]+)(m?s)/.exec(stripVTControlCharacters(out));
  return { wallMs, testsMs: m ? Number(m[1]) * (m[2] === 's' ? 1000 : 1) : Number.NaN, out };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const admin = new pg.Client(SERVICE);
  await admin.connect();
  const db = `ftdb_estimate_${process.pid}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const url = new URL(SERVICE);
  url.pathname = `/${db}`;
  const results: Record<string, unknown> = {};
  try {
    for (const shape of Object.keys(SHAPES) as Array<keyof typeof SHAPES>) {
      const dir = mkdtempSync(join(tmpdir(), `ftdb-estimate-${shape}-`));
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'estimate', private: true, type: 'module', dependencies: { postgres: '*' } }),
      );
      writeSuite(dir, shape);
      const report = join(dir, 'report.json');
      const legs = {
        default: () => runVitest(dir, 'default.config.js', { DATABASE_URL: url.href }),
        ftdb: () => runVitest(dir, 'ftdb.config.js', { REPORT_FILE: report }),
      };
      legs.ftdb(); // the first run builds the template; the figures are of later runs
      const got = {
        default: [] as number[],
        ftdb: [] as number[],
        ftdbWall: [] as number[],
        defaultWall: [] as number[],
        dbMs: [] as number[],
        share: [] as number[],
      };
      let line = '';
      for (let r = 0; r < rounds; r++) {
        for (const leg of r % 2 ? (['ftdb', 'default'] as const) : (['default', 'ftdb'] as const)) {
          const res = legs[leg]();
          got[leg].push(res.testsMs);
          got[leg === 'ftdb' ? 'ftdbWall' : 'defaultWall'].push(res.wallMs);
          if (leg === 'ftdb') {
            const d = JSON.parse(readFileSync(report, 'utf8')).database;
            got.dbMs.push(d.dbMs);
            got.share.push(d.share);
            line = /fast-test-db: the database was.*/.exec(stripVTControlCharacters(res.out))?.[0] ?? '';
          }
        }
      }
      const measuredExtra = median(got.default) - median(got.ftdb);
      results[shape] = {
        testsMs: { default: median(got.default), fastTestDb: median(got.ftdb) },
        wallMs: { default: median(got.defaultWall), fastTestDb: median(got.ftdbWall) },
        // What the default server cost the tests more, and the database wait the line reports on fast-test-db.
        defaultCostMoreMs: measuredExtra,
        lineDbWaitMs: median(got.dbMs),
        lineShare: median(got.share),
        defaultOverTunedWait: (median(got.dbMs) + measuredExtra) / median(got.dbMs),
        line,
        rounds,
      };
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await admin.end();
  }
  const out = join(ROOT, 'bench/results/reporter-estimate.json');
  writeFileSync(
    out,
    JSON.stringify({ date: new Date().toISOString(), service: 'PostgreSQL 15 service, default settings', results }, null, 2) + '\n',
  );
  process.stdout.write(JSON.stringify(results, null, 2) + '\n');
}

await main();
