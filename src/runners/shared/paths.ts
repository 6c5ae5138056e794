/**
 * Where the runner files that a test runner loads by path live: next to the module asking. From
 * source (development, our own fixtures) those are the .ts files; from a build, the .cjs files for
 * Jest (its setup files run in a CommonJS sandbox) and .js/.cjs for the others.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { here } from '../../here.js';
import { FastTestDbError } from '../../errors.js';

export function runnerFile(base: string, source: string, prefer: readonly string[] = ['.cjs', '.js', '.mjs']): string {
  const dir = here();
  // From source, `source` is the file's path under src/runners (jest/setup); built, `base` is its
  // entry name under dist/runners (jest-setup), and a bundler may move this code into a shared
  // chunk one level up from the runner files.
  const sourceFile = join(dir, 'runners', `${source}.ts`);
  if (existsSync(sourceFile)) return sourceFile;
  for (const d of [dir, join(dir, 'runners'), join(dir, '..', 'runners')])
    for (const ext of prefer) {
      const p = join(d, base + ext);
      if (existsSync(p)) return p;
    }
  throw new FastTestDbError('PACKAGE_BROKEN', `the runner file ${base} is missing next to ${dir}`, 'reinstall fast-test-db');
}
