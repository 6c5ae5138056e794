#!/usr/bin/env node
/**
 * Writes package.json's entry fields (main, module, types, exports, typesVersions, bin) from
 * scripts/entries.json, the list tsup.config.ts builds, so that the two never disagree.
 *
 *   node scripts/manifest.mjs [root]            (npm run manifest) writes them
 *   node scripts/manifest.mjs --check [root]    (in npm run lint) exits 1 when package.json differs
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const FIELDS = ['main', 'module', 'types', 'typesVersions', 'exports', 'bin'];

/** The entry fields package.json gets from this list of entries. */
function manifestFields(entries) {
  const file = (name, ext) => `./dist/${name}${ext}`;
  const subpath = (e) => (e.name === 'index' ? '.' : `./${e.name}`);
  const dual = (e) => e.formats.includes('cjs');
  const exported = entries.filter((e) => e.exposed === 'exports');
  const root = exported.find((e) => e.name === 'index');
  const exports = {};
  for (const e of exported)
    exports[subpath(e)] = dual(e)
      ? {
          import: { types: file(e.name, '.d.ts'), default: file(e.name, '.js') },
          require: { types: file(e.name, '.d.cts'), default: file(e.name, '.cjs') },
        }
      : { types: file(e.name, '.d.ts'), default: file(e.name, '.js') };
  exports['./package.json'] = './package.json';
  // TypeScript's node10 resolution (no "exports") finds a subpath's types here; it loads them as CommonJS where there is a CommonJS build.
  const typesVersions = { '*': {} };
  for (const e of exported.filter((e) => e !== root)) typesVersions['*'][e.name] = [file(e.name, dual(e) ? '.d.cts' : '.d.ts')];
  const bin = {};
  for (const e of entries.filter((e) => e.exposed === 'bin')) bin[e.bin] = file(e.name, '.js');
  return { main: file(root.name, '.cjs'), module: file(root.name, '.js'), types: file(root.name, '.d.ts'), typesVersions, exports, bin };
}

/** Why the list cannot be built as it is, one line each: a source file that is not there, a name twice. */
function listProblems(root, entries) {
  const problems = [];
  const names = new Set();
  for (const e of entries) {
    if (names.has(e.name)) problems.push(`entry "${e.name}" is listed twice`);
    names.add(e.name);
    if (!existsSync(join(root, e.source))) problems.push(`entry "${e.name}": ${e.source} does not exist (moved? change its source)`);
  }
  if (!entries.some((e) => e.name === 'index' && e.exposed === 'exports'))
    problems.push('no entry "index" exposed in exports: the package root');
  return problems;
}

function main() {
  const args = process.argv.slice(2);
  const checkOnly = args.includes('--check');
  const root = resolve(args.find((a) => !a.startsWith('--')) ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const { entries } = JSON.parse(readFileSync(join(root, 'scripts/entries.json'), 'utf8'));
  const problems = listProblems(root, entries);
  if (problems.length) {
    for (const p of problems) console.error(`scripts/entries.json: ${p}`);
    process.exit(1);
  }
  const pkgFile = join(root, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const fields = manifestFields(entries);
  const stale = FIELDS.filter((f) => !isDeepStrictEqual(pkg[f], fields[f]));
  if (checkOnly) {
    if (stale.length) {
      console.error(`package.json: ${stale.join(', ')} differ from scripts/entries.json: run \`npm run manifest\``);
      process.exit(1);
    }
    return;
  }
  // Assigning keeps each field where it stands in package.json; a missing one is added at the end.
  for (const f of FIELDS) pkg[f] = fields[f];
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  console.log(stale.length ? `package.json: wrote ${stale.join(', ')}` : 'package.json: up to date');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
