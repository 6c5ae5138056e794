/**
 * The examples import 'fast-test-db/*' as a user's project does, and `npm install` inside one puts
 * a packed copy of this repository in its node_modules. The suite runs them without installing:
 * a link examples/node_modules/fast-test-db -> .. makes those imports reach dist/ (`npm test`
 * builds it first), and every other package resolves from this repository's node_modules. An
 * example with its own install keeps using what it installed.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export function linkExamplesToBuild(): void {
  if (!existsSync(join(ROOT, 'dist/index.js')))
    throw new Error('the examples run on the built package: run `npm run build` first (npm test does)');
  const link = join(ROOT, 'examples/node_modules/fast-test-db');
  mkdirSync(join(ROOT, 'examples/node_modules'), { recursive: true });
  try {
    symlinkSync('../..', link);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}
