/**
 * scripts/check-architecture.mjs on small trees written for each case: every kind of finding is
 * reported at its file and line, and a tree that keeps the rules passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '../../scripts/check-architecture.mjs');
const trees: string[] = [];

afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** Runs the check on a tree of these files; its exit code and one entry per printed finding. */
function check(files: Record<string, string>): { status: number | null; findings: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'ftdb-architecture-'));
  trees.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: run.status, findings: run.stdout.split('\n').filter(Boolean) };
}

/** A tree that keeps every rule: what each failing case below breaks once. */
const CLEAN = {
  'src/types.ts': "export type Engine = 'postgres' | 'mysql';\n",
  'src/engines/index.ts': [
    "import type { Engine } from '../types.js';",
    'export const DEFAULT_PORT: Record<Engine, number> = { postgres: 5432, mysql: 3306 };',
    "export const isPostgres = (engine: Engine) => engine === 'postgres';",
    '',
  ].join('\n'),
  'src/core/database.ts': [
    "import { DEFAULT_PORT } from '../engines/index.js';",
    "import type { Engine } from '../types.js';",
    '// An engine given or not, or two engines the same, is no branch on which one.',
    'export const port = (engine?: Engine) => (engine !== undefined ? DEFAULT_PORT[engine] : 0);',
    'export const same = (s: { engine: Engine }, engine: Engine) => s.engine === engine;',
    'export const only = (s: { engine: Engine }, engineOnly?: Engine) => !engineOnly || s.engine === engineOnly;',
    '',
  ].join('\n'),
  'src/index.ts': "export { port } from './core/database.js';\nexport * from './cli/main.js';\n",
  'src/cli/main.ts': "import { port } from '../core/database.js';\nexport const main = () => port();\n",
  'adapters/typeorm/index.ts': "import { port } from '../../src/core/database.js';\nexport const typeorm = () => port('mysql');\n",
};

describe('check-architecture', () => {
  it('passes a tree that keeps the rules', () => {
    expect(check(CLEAN)).toEqual({ status: 0, findings: [] });
  });

  it('reports each way of branching on the engine outside src/engines', () => {
    const { status, findings } = check({
      ...CLEAN,
      'src/core/branch.ts': [
        "import type { Engine } from '../types.js';",
        "export const a = (engine: Engine) => engine === 'postgres';",
        "export const b = (server: { engine: Engine }) => server.engine !== 'mysql';",
        'export function c(engine: Engine) {',
        '  switch (engine) {',
        "    case 'mysql':",
        '      return 1;',
        '  }',
        '  return 0;',
        '}',
        'export const d = (x: { engine: { name: string } }, y: string) => x.engine.name === y;',
        'export const e = (engine: Engine, PG: string) => engine === PG;',
        "export const f = (flavor: string) => flavor == 'mariadb';",
        "export const g = { postgres: 'pid', mysql: 'connection' };",
        "export const h = (url: string) => url.startsWith('postgres://');",
        'export const j = (d: object, e: { postgres: object }) => d !== e.postgres;',
        'export function i(engine: Engine) {',
        '  switch (engine) {',
        '    default:',
        '      return 0;',
        '  }',
        '}',
        '',
      ].join('\n'),
    });
    expect(status).toBe(1);
    const lines = findings.filter((f) => f.includes('engine-branch')).map((f) => f.split('  ')[0]);
    expect(lines).toEqual([2, 3, 6, 11, 12, 13, 14, 15, 16, 18].map((n) => `src/core/branch.ts:${n}`));
    expect(findings[0]).toContain("`engine === 'postgres'`");
    expect(findings[0]).toContain('ask the engine');
  });

  it('reports an import from a higher layer in each import form', () => {
    const { status, findings } = check({
      ...CLEAN,
      'src/util/value.ts': "import { port } from '../core/database.js';\nexport const v = port;\n",
      'src/util/type.ts':
        "import type { Engine } from '../types.js';\nimport type { port } from '../core/database.js';\nexport type T = typeof port | Engine;\n",
      'src/util/reexport.ts': "export { port } from '../core/database.js';\n",
      'src/util/dynamic.ts': "export const load = () => import('../core/database.js');\n",
      'src/util/type-query.ts': "export type P = typeof import('../core/database.js').port;\n",
      'src/reporters/print.ts': "export const print = () => import('../runners/worker.js');\n",
      'src/runners/worker.ts': 'export const worker = 1;\n',
      'src/engines/facade.ts': "import { port } from '../index.js';\nexport const f = port;\n",
    });
    expect(status).toBe(1);
    expect(findings.filter((f) => f.includes('  layer  '))).toEqual([
      expect.stringMatching(/^src\/engines\/facade\.ts:1 {2}layer {2}engines imports src\/index\.ts from facade/),
      expect.stringMatching(/^src\/reporters\/print\.ts:1 {2}layer {2}reporters imports src\/runners\/worker\.ts from runners/),
      expect.stringMatching(/^src\/util\/dynamic\.ts:1 {2}layer {2}base imports src\/core\/database\.ts from core/),
      expect.stringMatching(/^src\/util\/reexport\.ts:1 {2}layer /),
      expect.stringMatching(/^src\/util\/type-query\.ts:1 {2}layer /),
      expect.stringMatching(/^src\/util\/type\.ts:2 {2}layer /),
      expect.stringMatching(/^src\/util\/value\.ts:1 {2}layer /),
    ]);
  });

  it('reports a file in no layer', () => {
    const { status, findings } = check({ ...CLEAN, 'src/loose.ts': 'export const loose = 1;\n' });
    expect(status).toBe(1);
    expect(findings).toEqual([expect.stringMatching(/^src\/loose\.ts:1 {2}layer {2}this file is in no layer/)]);
  });

  it('reports an import cycle, type imports included, printing it', () => {
    const { status, findings } = check({
      ...CLEAN,
      'src/core/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'src/core/b.ts': "import { c } from './c.js';\nexport interface B { c: typeof c }\n",
      'src/core/c.ts': "import type { A } from './a.js';\nexport const c: A | undefined = undefined;\n",
    });
    expect(status).toBe(1);
    expect(findings).toEqual([
      'src/core/a.ts:1  cycle  import cycle src/core/a.ts → src/core/b.ts → src/core/c.ts → src/core/a.ts: move what they share into a lower file, or pass it in',
    ]);
  });
});
