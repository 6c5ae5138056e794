/**
 * MariaDB cold start: the template built again (warm start off) against the warm start (the data
 * directory saved at the last clean stop, copied back), on the 30-table fixture schema with 324 seed
 * rows, with a quick migrate and with one that takes 2 s more. Each sample is one worker process on a
 * server that is not running: createTestDatabase() until the database is handed out, then the run
 * ends and the keeper stops the server (and saves the copy, when one was built). Legs alternate.
 *
 *   npx tsx bench/mysql-warm.ts [--rounds 5] [--out bench/results/x.json]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { WARM_COPY_NAME } from '../src/server/os/copy-names.js';
import { treeBytes } from '../src/server/os/warm-cache.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const rounds = Number(arg('rounds', '5'));
const work = mkdtempSync('/tmp/ftdb-bench-mywarm-');
const dataRoot = join('/dev/shm', `ftdb-bench-mywarm-${process.pid}`);
const cache = join(work, 'cache');

function run(env: Record<string, string>): { ms: number; built: boolean; t27: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'mysql-warm-worker.mts')], {
    env: { ...process.env, DATA_ROOT: dataRoot, FAST_TEST_DB_CACHE_DIR: cache, FAST_TEST_DB_GRACE_MS: '0', ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`worker failed: ${r.stderr}`);
  // Until the keeper is gone and the copy written: the next sample is a cold start again.
  const deadline = Date.now() + 30_000;
  const busy = () => existsSync(dataRoot) && readdirSync(dataRoot).some((u) => readdirSync(join(dataRoot, u)).length > 0);
  while (busy() && Date.now() < deadline) spawnSync('sleep', ['0.05']);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const legs: { name: string; env: Record<string, string> }[] = [
  { name: 'rebuild, quick migrate', env: { FAST_TEST_DB_DATA_CACHE: '0', CACHE_KEY: 'quick' } },
  { name: 'warm start, quick migrate', env: { CACHE_KEY: 'quick' } },
  { name: 'rebuild, migrate + 2 s', env: { FAST_TEST_DB_DATA_CACHE: '0', CACHE_KEY: 'slow', SLOW_MS: '2000' } },
  { name: 'warm start, migrate + 2 s', env: { CACHE_KEY: 'slow', SLOW_MS: '2000' } },
];
const samples: Record<string, { ms: number; built: boolean }[]> = Object.fromEntries(legs.map((l) => [l.name, []]));
const load = [loadavg()];
try {
  // The first warm runs build and save the copies the warm legs start from.
  for (const key of ['quick', 'slow']) run({ CACHE_KEY: key });
  for (let i = 0; i < rounds; i++)
    for (const leg of i % 2 ? [...legs].reverse() : legs) {
      const s = run(leg.env);
      if (s.t27 !== 12) throw new Error(`${leg.name}: t27 holds ${s.t27} rows`);
      samples[leg.name]!.push(s);
    }
  load.push(loadavg());
  const copies = readdirSync(cache).filter((n) => WARM_COPY_NAME.test(n));
  const result = {
    at: new Date().toISOString(),
    load,
    rounds,
    copyBytes: copies.map((c) => treeBytes(join(cache, c))),
    legs: legs.map((l) => ({
      name: l.name,
      medianMs: Math.round(median(samples[l.name]!.map((s) => s.ms))),
      ms: samples[l.name]!.map((s) => Math.round(s.ms)),
      built: samples[l.name]!.filter((s) => s.built).length,
    })),
  };
  console.log(JSON.stringify(result, null, 2));
  const out = arg('out', '');
  if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(dataRoot, { recursive: true, force: true });
}
