/**
 * The library as users get it: the built files in dist/. What runs inside a measured run (a
 * runner integration in a config, an adapter in a worker, the keeper either one spawns) loads
 * from there, so that no figure carries a compilation of our own TypeScript that users never
 * pay (tsx starting the keeper alone is ~0.3 s here). The harness itself may import the sources.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
export const DIST = join(ROOT, 'dist');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is missing or older than a source file; a fresh build (npm test's own) is used as it is. */
export function ensureBuilt(log: (line: string) => void = () => {}): void {
  const marker = join(DIST, 'index.js');
  const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  if (built > Math.max(newestSource(join(ROOT, 'src')), newestSource(join(ROOT, 'adapters')))) return;
  log('  building dist/ (the benches measure the built package)');
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
}

/** An entry of the built package, e.g. fromDist<typeof import('../../src/index.js')>('index.js'). */
export function fromDist<T>(entry: string): Promise<T> {
  return import(pathToFileURL(join(DIST, entry)).href) as Promise<T>;
}
