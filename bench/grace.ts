/**
 * What the keeper's grace period buys an adapter used alone (no runner global setup): 4 test files
 * run one after another as 4 processes, each creating its test database, with the server stopped
 * as soon as the last client ends (FAST_TEST_DB_GRACE_MS=0) and with the default grace.
 *
 *   node --import tsx bench/grace.ts [repeats]
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const repeats = Number(process.argv[2] ?? 3);

function run(grace: string | undefined): { ms: number; builds: number; servers: number } {
  const dataRoot = mkdtempSync('/dev/shm/ftdb-bench-grace-');
  chmodSync(dataRoot, 0o755);
  const env = { ...process.env, DATA_ROOT: dataRoot, ...(grace === undefined ? {} : { FAST_TEST_DB_GRACE_MS: grace }) };
  if (grace === undefined) delete env.FAST_TEST_DB_GRACE_MS;
  const began = performance.now();
  const results = [];
  for (let file = 0; file < 4; file++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/grace-worker.mts')], { cwd: ROOT, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    results.push(JSON.parse(r.stdout.split('\n')[0]!) as { built: boolean; port: number });
  }
  const ms = performance.now() - began;
  // Let the last server go (grace, then stop) before the next sample.
  spawnSync('sleep', [String(grace === undefined ? 8 : 2)]);
  rmSync(dataRoot, { recursive: true, force: true });
  return { ms, builds: results.filter((r) => r.built).length, servers: new Set(results.map((r) => r.port)).size };
}

for (const [label, grace] of [
  ['no grace (0 ms)', '0'],
  ['default grace', undefined],
] as const) {
  const samples = Array.from({ length: repeats }, () => run(grace));
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  console.log(
    `${label}: 4 sequential processes, median ${(ms[Math.floor(ms.length / 2)]! / 1000).toFixed(2)} s (min ${(ms[0]! / 1000).toFixed(2)}, max ${(ms.at(-1)! / 1000).toFixed(2)}), servers started ${samples.map((s) => s.servers).join('/')}, template builds ${samples.map((s) => s.builds).join('/')}`,
  );
}
