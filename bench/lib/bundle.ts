/**
 * A worker script of the harness as plain JavaScript, so that a worker process starts as a user's
 * would: `node script.mjs`, not `node --import tsx script.ts` (tsx's loader took about 1 s of CPU
 * per worker here, and a figure of 2 workers against 1 carried it twice). Bundled once per bench
 * process into bench/.build/, two levels below the repository like the source, so that paths the
 * script makes from its own location (dist/ through fromDist) stay right; packages stay external.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'bench/.build');
const built = new Map<string, string>();

export function bundledScript(entry: string): string {
  let out = built.get(entry);
  if (out) return out;
  mkdirSync(OUT, { recursive: true });
  // Named after the whole path, so that two entries called worker.ts do not overwrite each other.
  out = join(OUT, entry.replace(/\.ts$/, '').replace(/[^\w.-]+/g, '-') + '.mjs');
  buildSync({
    entryPoints: [join(ROOT, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'error',
  });
  built.set(entry, out);
  return out;
}
