/**
 * The built package as users load it: ESM import and CommonJS require of dist/, each starting a
 * server (so the keeper is found next to the bundle) and getting a database; and the bin.
 * `npm test` builds first; this file fails clearly when dist/ is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
const dist = (f: string) => join(ROOT, 'dist', f);

function node(args: string[], input?: string): string {
  return execFileSync(process.execPath, args, {
    cwd: ROOT,
    encoding: 'utf8',
    input,
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 120_000,
  });
}

/** Built-ins that exist only with the `node:` scheme: without it Node looks for a package of that name. */
const SCHEME_ONLY = ['test', 'test/reporters', 'sqlite', 'sea'];

/** Every module specifier a built file loads: static imports, dynamic imports, requires. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)["']([\w@][\w@./:-]*)["']/gm)].map((m) => m[1]!);
}

const body = (load: string) => `
  const { createTestDatabase } = ${load};
  const pg = require('pg');
  (async () => {
    const db = await createTestDatabase({ worker: 'dist-' + process.argv[1], cacheKey: 'dist' });
    const c = new pg.Client(db.url); await c.connect();
    const { rows } = await c.query('select current_database() as name'); await c.end();
    await db.destroy();
    console.log(JSON.stringify({ name: rows[0].name, expected: db.name, owned: db.server.owned }));
  })().catch((e) => { console.error(e); process.exit(1); });`;

describe('the built package', () => {
  it('has been built', () => {
    expect(existsSync(dist('index.js')), 'run `npm run build` (npm test does) before this file').toBe(true);
  });

  it('loads built-ins by node: and packages only among its dependencies and peers', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const allowed = new Set([pkg.name, ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    const builtins = new Set([...builtinModules, ...SCHEME_ONLY]);
    const bad: string[] = [];
    const files = readdirSync(join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.c?js$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files)
      for (const spec of specifiers(dist(f))) {
        if (spec.startsWith('.') || spec.startsWith('node:')) continue;
        const pkgName = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (builtins.has(spec) || builtins.has(pkgName)) bad.push(`${f}: "${spec}" (a built-in without node:)`);
        else if (!allowed.has(pkgName)) bad.push(`${f}: "${spec}" (not a dependency or peer)`);
      }
    expect(bad).toEqual([]);
  });

  it('works from CommonJS', () => {
    const out = JSON.parse(node(['-e', body(`require(${JSON.stringify(dist('index.cjs'))})`), 'cjs']).trim());
    expect(out.name).toBe(out.expected);
    expect(out.owned).toBe(true);
  });

  it('works from an ES module', () => {
    const script =
      `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
      const mod = await import(${JSON.stringify(dist('index.js'))});` + body('mod');
    const out = JSON.parse(node(['--input-type=module', '-e', script, 'esm']).trim());
    expect(out.name).toBe(out.expected);
  });

  it('ships a working bin', () => {
    const help = node([dist('cli.js'), '--help']);
    expect(help).toMatch(/doctor/);
    expect(help).toMatch(/clean/);
  });

  it("carries package.json's version, written in by the build", () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(node([dist('cli.js'), '--version']).trim()).toBe(version);
    expect(
      readdirSync(join(ROOT, 'dist')).some((f) => /\.c?js$/.test(f) && readFileSync(dist(f), 'utf8').includes('__FAST_TEST_DB_VERSION__')),
    ).toBe(false);
  });
});
