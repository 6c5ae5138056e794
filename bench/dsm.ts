/**
 * Does putting PostgreSQL's dynamic shared memory in the data directory (mmap, on tmpfs) instead of
 * /dev/shm segments (posix) cost anything? Same tuned server both ways; times a template clone and
 * a parallel query (the main user of dynamic shared memory), alternating the two servers.
 *
 *   node --import tsx bench/dsm.ts [rounds]
 */
import pg from 'pg';
import { findPostgresBinaries } from '../src/engines/postgres/embedded-binaries.js';
import { postgresSettings } from '../src/engines/postgres/tuning.js';
import { buildContext } from '../src/options/context.js';
import { startPlainPostgres } from '../test/helpers/plain-postgres.js';

const rounds = Number(process.argv[2] ?? 5);
const { major } = findPostgresBinaries(buildContext());
const tuned = postgresSettings({ maxConnections: 100, major });

async function prepare(type: string) {
  const server = await startPlainPostgres({
    root: '/dev/shm',
    settings: {
      ...tuned,
      dynamic_shared_memory_type: type,
      max_parallel_workers_per_gather: '2',
      parallel_setup_cost: '0',
      parallel_tuple_cost: '0',
      min_parallel_table_scan_size: '0',
    },
  });
  const admin = new pg.Client(server.url);
  await admin.connect();
  await admin.query('CREATE DATABASE tpl');
  const schema = new pg.Client(server.url.replace(/\/postgres$/, '/tpl'));
  await schema.connect();
  for (let i = 0; i < 30; i++)
    await schema.query(`CREATE TABLE t${i} (id serial PRIMARY KEY, name text NOT NULL, created timestamptz DEFAULT now())`);
  await schema.end();
  await admin.query('CREATE DATABASE work');
  const tpl = new pg.Client(server.url.replace(/\/postgres$/, '/work'));
  await tpl.connect();
  await tpl.query(`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 1000000) g`);
  await tpl.query('ANALYZE big');
  return { server, admin, tpl, n: 0 };
}

const time = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const servers = { posix: await prepare('posix'), mmap: await prepare('mmap') };
const samples: Record<string, { clone: number[]; parallel: number[] }> = {
  posix: { clone: [], parallel: [] },
  mmap: { clone: [], parallel: [] },
};
const plan = (await servers.mmap.tpl.query('EXPLAIN SELECT count(*), max(a.h) FROM big a JOIN big b USING (id)')).rows
  .map((r) => r['QUERY PLAN'])
  .join('\n');
for (let r = 0; r < rounds; r++) {
  for (const [type, s] of Object.entries(servers)) {
    samples[type]!.clone.push(await time(() => s.admin.query(`CREATE DATABASE c${s.n++} TEMPLATE tpl STRATEGY FILE_COPY`)));
    samples[type]!.parallel.push(await time(() => s.tpl.query('SELECT count(*), max(a.h) FROM big a JOIN big b USING (id)')));
  }
}
for (const [type, s] of Object.entries(samples))
  console.log(
    `${type}: clone of a 30-table template median ${median(s.clone).toFixed(1)} ms; parallel hash join of 1M x 1M rows median ${median(s.parallel).toFixed(0)} ms (${rounds} rounds)`,
  );
console.log(plan.includes('Parallel') ? 'the join ran in parallel (Gather + Parallel Hash)' : `no parallel plan:\n${plan}`);
for (const s of Object.values(servers)) {
  await s.tpl.end();
  await s.admin.end();
  await s.server.stop();
}
