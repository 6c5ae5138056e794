// The repository's `prepare` script. The examples depend on "file:../.." with install-links, so
// `npm install` in an example packs this repository as `npm publish` would, running `prepare`
// here first: build dist/ so that the example gets the package a user gets. On a fresh clone the
// repository's own dependencies (the build tools) are installed first.
//
// `npm install`, `npm ci` and `npm pack` run at the repository root itself do nothing here: there,
// `npm run build` (which `npm test` runs) builds.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const from = resolve(process.env.INIT_CWD ?? root);

if (from !== root) {
  const run = (command) => execSync(command, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (!existsSync(join(root, 'node_modules/.bin/tsup'))) run('npm ci --ignore-scripts --no-audit --no-fund --prefer-offline');
  run('npm run build');
}
