/**
 * The manifest from one list: package.json's entry fields are what scripts/manifest.mjs writes from
 * scripts/entries.json, `--check` (in `npm run lint`) fails when they are not, and the build makes
 * every file the list and package.json name. Needs `npm run build` (npm test builds first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts/manifest.mjs');
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Entry {
  name: string;
  source: string;
  formats: string[];
  exposed: 'exports' | 'path' | 'bin';
  bin?: string;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

function manifest(root: string, ...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args, root], { encoding: 'utf8' });
}

/** A project of these entries, each source present, and a package.json of its own fields only. */
function project(entries: Entry[]): string {
  const root = mkdtempSync(join(tmpdir(), 'ftdb-manifest-'));
  dirs.push(root);
  mkdirSync(join(root, 'scripts'));
  writeFileSync(join(root, 'scripts/entries.json'), JSON.stringify({ entries }));
  for (const e of entries) {
    mkdirSync(join(root, e.source, '..'), { recursive: true });
    writeFileSync(join(root, e.source), 'export {};\n');
  }
  writeFileSync(join(root, 'package.json'), `${JSON.stringify({ name: 'p', version: '1.0.0', scripts: { a: 'b' } }, null, 2)}\n`);
  return root;
}

const ENTRIES: Entry[] = [
  { name: 'index', source: 'src/index.ts', formats: ['esm', 'cjs'], exposed: 'exports' },
  { name: 'runners/x', source: 'src/x/index.ts', formats: ['esm'], exposed: 'exports' },
  { name: 'helper', source: 'src/helper.ts', formats: ['esm', 'cjs'], exposed: 'path' },
  { name: 'cli', source: 'src/cli.ts', formats: ['esm'], exposed: 'bin', bin: 'p' },
];

describe('the package manifest', () => {
  it("is what the list gives: package.json's entry fields are up to date", () => {
    const run = manifest(ROOT, '--check');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('writes the fields from the list, in place, and leaves the rest of package.json', () => {
    const root = project(ENTRIES);
    expect(manifest(root, '--check').stderr).toMatch(/main, module, types, typesVersions, exports, bin differ .*npm run manifest/);
    expect(manifest(root).status).toBe(0);
    const pkg = readJson(join(root, 'package.json'));
    expect(pkg).toEqual({
      name: 'p',
      version: '1.0.0',
      scripts: { a: 'b' },
      main: './dist/index.cjs',
      module: './dist/index.js',
      types: './dist/index.d.ts',
      typesVersions: { '*': { 'runners/x': ['./dist/runners/x.d.ts'] } },
      exports: {
        '.': {
          import: { types: './dist/index.d.ts', default: './dist/index.js' },
          require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
        },
        './runners/x': { types: './dist/runners/x.d.ts', default: './dist/runners/x.js' },
        './package.json': './package.json',
      },
      bin: { p: './dist/cli.js' },
    });
    expect(manifest(root, '--check').status).toBe(0);
  });

  it('fails the check when the list changed and package.json did not', () => {
    const root = project(ENTRIES);
    manifest(root);
    const list = readJson(join(root, 'scripts/entries.json'));
    list.entries[2].exposed = 'exports';
    writeFileSync(join(root, 'scripts/entries.json'), JSON.stringify(list));
    const run = manifest(root, '--check');
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('package.json: typesVersions, exports differ from scripts/entries.json: run `npm run manifest`\n');
  });

  it('names the entry whose source file is not there', () => {
    const root = project(ENTRIES);
    rmSync(join(root, 'src/helper.ts'));
    const run = manifest(root, '--check');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('entry "helper": src/helper.ts does not exist (moved? change its source)');
  });

  it('is built: every file of every entry, and every file package.json names', () => {
    expect(existsSync(join(ROOT, 'dist/index.js')), 'run `npm run build` (npm test does) before this file').toBe(true);
    const { entries } = readJson(join(ROOT, 'scripts/entries.json')) as { entries: Entry[] };
    const built = entries.flatMap((e) => [`dist/${e.name}.js`, ...(e.formats.includes('cjs') ? [`dist/${e.name}.cjs`] : [])]);
    const pkg = readJson(join(ROOT, 'package.json'));
    const named = JSON.stringify([pkg.main, pkg.module, pkg.types, pkg.exports, pkg.typesVersions, pkg.bin]).match(/\.\/dist\/[^"]+/g)!;
    expect(named.length).toBeGreaterThan(50);
    const missing = [...built, ...named.map((f) => f.slice(2))].filter((f) => !existsSync(join(ROOT, f)));
    expect(missing).toEqual([]);
  });
});
