/**
 * The README and docs/ as users get them: on the registry's page and in node_modules, where only
 * what `npm pack` ships exists. Every relative link resolves to a file of the tarball and every
 * anchor to a heading; every snippet marked `<!-- snippet: dir/file -->` compiles or loads as
 * written, next to the few files of the user's own it imports. Needs `npm run build` (the snippets
 * import the package by its name, which resolves to dist/).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../runners/harness.js';

const run = promisify(execFile);
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
/** The pages for a clone of the repository, whose reader has every file of it: they may name its files. */
const FOR_A_CLONE = ['docs/development.md', 'docs/architecture.md'];

/** GitHub's (and the registry's) heading ids: lower case, punctuation gone, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutCode(text).split('\n')) {
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** The text outside fenced code blocks: a `](x)` inside code is not a link. */
function withoutCode(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function linksOf(text: string): string[] {
  return [...withoutCode(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

interface Snippet {
  path: string;
  code: string;
}

function snippets(): Snippet[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/<!-- snippet: (\S+) -->\n```\w*\n([\s\S]*?)^```/gm)].map((m) => ({ path: m[1]!, code: m[2]! }));
}

describe('README and docs/ as the tarball ships them', () => {
  let packed: Set<string>;
  beforeAll(async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    packed = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path));
  }, 120_000);

  it('ships every page it links from', () => {
    for (const doc of DOCS) expect(packed, doc).toContain(doc);
  });

  it('links only to files of the tarball, and to headings that exist', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const link of linksOf(readFileSync(join(ROOT, doc), 'utf8'))) {
        if (/^(https?|mailto):/.test(link)) continue;
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? normalize(join(dirname(doc), path)) : doc;
        if (target.startsWith('..') || !packed.has(target)) {
          broken.push(`${doc}: ${link} (not in the tarball)`);
          continue;
        }
        if (anchor !== undefined && !anchorsOf(readFileSync(join(ROOT, target), 'utf8')).has(anchor))
          broken.push(`${doc}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names no file of the repository that users do not have, outside the pages that say they are for a clone', () => {
    for (const doc of FOR_A_CLONE) expect(readFileSync(join(ROOT, doc), 'utf8'), doc).toMatch(/^For a clone of the repository/m);
    const cited: string[] = [];
    for (const doc of DOCS.filter((d) => !FOR_A_CLONE.includes(d))) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      // A path of this repository that the tarball lacks (a user's own src/db.ts is not one).
      for (const m of text.matchAll(/`([\w.-]+\/[\w/.-]+\.[cm]?[tj]s)`/g))
        if (existsSync(join(ROOT, m[1]!)) && !packed.has(m[1]!)) cited.push(`${doc}: ${m[1]}`);
    }
    expect(cited).toEqual([]);
  });

  it('the README is short and starts with a complete setup per runner and ORM', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.length).toBeLessThan(16_000);
    expect(readme).not.toMatch(/\/\*\s*(…|\.\.\.)\s*\*\//);
    const names = snippets().map((s) => s.path);
    for (const want of ['vitest-typeorm/', 'vitest-prisma/', 'vitest-drizzle/', 'jest-typeorm/', 'sql/', 'config/', 'playwright/'])
      expect(
        names.some((n) => n.startsWith(want)),
        want,
      ).toBe(true);
  });
});

/** The user's own files the snippets import: the least that makes them compile. */
const USER_FILES: Record<string, string> = {
  'vitest-typeorm/src/data-source.ts': `import type { DataSourceOptions } from 'typeorm';\nexport const dataSourceOptions: DataSourceOptions = { type: 'postgres', entities: [] };\n`,
  'vitest-drizzle/src/schema.ts': `import { pgTable, serial, text } from 'drizzle-orm/pg-core';\nexport const users = pgTable('users', { id: serial('id').primaryKey(), name: text('name') });\n`,
  'config/src/schema.js': `import { pgTable, serial, text } from 'drizzle-orm/pg-core';\nexport const users = pgTable('users', { id: serial('id').primaryKey(), name: text('name') });\n`,
  'jest-typeorm/src/data-source.js': `exports.dataSourceOptions = { type: 'postgres', entities: [] };\n`,
};

describe("the README's snippets, as written", () => {
  // Inside the repository, so that `fast-test-db` resolves to this package (dist/) and its peers to node_modules.
  const dir = join(ROOT, `.snippets-${process.pid}`);
  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true });
    for (const s of snippets()) {
      mkdirSync(dirname(join(dir, s.path)), { recursive: true });
      writeFileSync(join(dir, s.path), s.code);
    }
    for (const [path, text] of Object.entries(USER_FILES)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the TypeScript ones type-check (strict, as a bundler or Vitest resolves them)', async () => {
    const files = snippets()
      .filter((s) => s.path.endsWith('.ts'))
      .map((s) => relative(dir, join(dir, s.path)));
    expect(files.length).toBeGreaterThan(4);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          skipLibCheck: true,
          experimentalDecorators: true,
          types: ['node'],
        },
        files,
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const out = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir }).then(
      () => '',
      (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
    expect(out).toBe('');
  }, 180_000);

  it('the CommonJS Jest config loads and is wrapped (its global setup is ours, no require.resolve needed)', () => {
    const path = join(dir, snippets().find((s) => s.path.startsWith('jest-typeorm/'))!.path);
    const config = createRequire(path)(path) as { globalSetup?: string; preset?: string };
    expect(config.preset).toBe('ts-jest');
    expect(config.globalSetup).toMatch(/fast-test-db|dist/);
  });

  it('the config file for node:test, Mocha and Playwright loads and names an adapter', async () => {
    const path = join(dir, snippets().find((s) => s.path.startsWith('config/'))!.path);
    const config = (await import(pathToFileURL(path).href)).default as { adapter?: unknown };
    expect(typeof config.adapter).toBe('function');
  });
});
