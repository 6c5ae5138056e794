/**
 * The new text of each file init changes, from the plan: the runner config wrapped in
 * withFastTestDb (Jest, Vitest), or fast-test-db.config.* and the test script's flag (Mocha,
 * node:test). Edits are made in the file's own text, around the exported expression, so that
 * everything else (comments, formatting) stays as the user wrote it.
 */
import { FastTestDbError } from '../../errors.js';
import type { Project } from './detect.js';
import type { Plan, Recipe } from './plan.js';

export interface FileChange {
  path: string;
  /** undefined: a new file. */
  old: string | undefined;
  next: string;
}

type Style = { module: 'cjs' | 'esm'; ts: boolean; requireName?: string };

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : q(k));

/** `{ a: 'x', b: 'y' }` on one line. */
const objectLiteral = (o: Record<string, string>) =>
  `{ ${Object.entries(o)
    .map(([k, v]) => `${key(k)}: ${q(v)}`)
    .join(', ')} }`;

interface Rendered {
  /** Lines to add at the top (imports), ESM only. */
  imports: string[];
  /** `key: value` entries of the options object. */
  entries: string[];
}

/** The options object's entries, and what they import, in one module style. */
export function renderOptions(plan: Plan, style: Style, importPrefix = './'): Rendered {
  const imports: string[] = [];
  const entries: string[] = [];
  if (plan.recipe) entries.push(`adapter: ${adapterCode(plan.recipe, style, imports, importPrefix)}`);
  if (plan.migrate) entries.push(`migrate: ${q(plan.migrate)}`);
  if (plan.migrationFiles?.length)
    entries.push(
      `migrationFiles: ${plan.migrationFiles.length === 1 ? q(plan.migrationFiles[0]!) : `[${plan.migrationFiles.map(q).join(', ')}]`}`,
    );
  if (plan.seed) entries.push(`seed: ${q(plan.seed)}`);
  if (plan.engine) entries.push(`engine: ${q(plan.engine)}`);
  if (plan.env) entries.push(`env: ${objectLiteral(plan.env)}`);
  if (plan.login) entries.push(`login: ${objectLiteral(plan.login)}`);
  return { imports, entries };
}

function relModule(module: string, style: Style, prefix: string): string {
  // TypeScript configs load through a transform that resolves extensionless paths; plain ESM needs the file's own name.
  const path = module.replace(/^\.\//, prefix);
  return style.ts || style.module === 'cjs' ? path : `${path}.js`;
}

function adapterCode(recipe: Recipe, style: Style, imports: string[], prefix: string): string {
  if (style.module === 'cjs' || style.requireName) {
    // Required inside the function: Jest's main process calls it with its transform hooked into require.
    const r = style.requireName ?? 'require';
    switch (recipe.kind) {
      case 'typeorm': {
        const mod = `${r}(${q(relModule(recipe.module, { ...style, module: 'cjs' }, prefix))})`;
        return `() => ${r}('fast-test-db/typeorm').typeormTemplate(${recipe.access ? `${mod}.${recipe.access}` : mod})`;
      }
      case 'prisma':
        return `() => ${r}('fast-test-db/prisma').prismaTemplate({ schema: ${q(recipe.schema)}${recipe.dbPush ? ", migrateWith: 'db-push'" : ''} })`;
      case 'drizzle':
        return `() => ${r}('fast-test-db/drizzle').drizzleTemplate({ schema: ${r}(${q(relModule(recipe.schema, { ...style, module: 'cjs' }, prefix))})${recipe.migrationsFolder ? `, migrationsFolder: ${q(recipe.migrationsFolder)}` : ''} })`;
    }
  }
  switch (recipe.kind) {
    case 'typeorm': {
      imports.push("import { typeormTemplate } from 'fast-test-db/typeorm';");
      const [first, ...rest] = recipe.access.split('.');
      const path = q(relModule(recipe.module, style, prefix));
      if (first === 'default') {
        imports.push(`import dataSource from ${path};`);
        return `() => typeormTemplate(${['dataSource', ...rest].join('.')})`;
      }
      imports.push(`import { ${first} } from ${path};`);
      return `() => typeormTemplate(${recipe.access})`;
    }
    case 'prisma':
      imports.push("import { prismaTemplate } from 'fast-test-db/prisma';");
      return `() => prismaTemplate({ schema: ${q(recipe.schema)}${recipe.dbPush ? ", migrateWith: 'db-push'" : ''} })`;
    case 'drizzle':
      imports.push("import { drizzleTemplate } from 'fast-test-db/drizzle';");
      imports.push(`import * as schema from ${q(relModule(recipe.schema, style, prefix))};`);
      return `() => drizzleTemplate({ schema${recipe.migrationsFolder ? `, migrationsFolder: ${q(recipe.migrationsFolder)}` : ''} })`;
  }
}

/** The options as the second argument of withFastTestDb, indented for a call that spans lines. */
function optionsArg(entries: string[], indent: string): string {
  if (entries.length === 0) return '';
  return `{\n${entries.map((e) => `${indent}  ${e},`).join('\n')}\n${indent}}`;
}

/**
 * Skips a string, template literal or comment starting at `i`; returns the index after it, or `i`
 * when none starts there.
 */
function skip(text: string, i: number): number {
  const c = text[i];
  if (c === '/' && text[i + 1] === '/') {
    const end = text.indexOf('\n', i);
    return end < 0 ? text.length : end;
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end < 0 ? text.length : end + 2;
  }
  if (c === '"' || c === "'" || c === '`') {
    let j = i + 1;
    while (j < text.length && text[j] !== c) {
      if (text[j] === '\\') j++;
      else if (c === '`' && text[j] === '$' && text[j + 1] === '{') j = matching(text, j + 1);
      j++;
    }
    return j + 1;
  }
  return i;
}

/** The index of the bracket closing the one at `open`. */
function matching(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack = [pairs[text[open]!]!];
  for (let i = open + 1; i < text.length; i++) {
    const s = skip(text, i);
    if (s !== i) {
      i = s - 1;
      continue;
    }
    const c = text[i]!;
    if (pairs[c]) stack.push(pairs[c]!);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (!stack.length) return i;
    }
  }
  throw new FastTestDbError(
    'UNSUPPORTED',
    'unbalanced brackets in the runner config',
    'wrap the config in withFastTestDb(...) by hand (docs/adopting.md)',
  );
}

/**
 * The first index in [from, to) where `stop` holds for a character outside strings, comments and
 * brackets (brackets are stepped over whole), else `to`.
 */
function topLevelStop(text: string, from: number, to: number, stop: (c: string, at: number) => boolean): number {
  let i = from;
  for (; i < to; i++) {
    const s = skip(text, i);
    if (s !== i) {
      i = s - 1;
      continue;
    }
    const c = text[i]!;
    if (c === '(' || c === '[' || c === '{') i = matching(text, i);
    else if (stop(c, i)) break;
  }
  return i;
}

/** Where the exported expression of a config module starts and ends (end exclusive, before any `;`). */
export function exportedExpression(text: string): { start: number; end: number; esm: boolean } | undefined {
  const m = /^(?:module\.exports\s*=|export\s+default)\s*/m.exec(text);
  if (!m) return undefined;
  const start = m.index + m[0].length;
  const i = topLevelStop(text, start, text.length, (c, at) => {
    if (c === ';') return true;
    if (c !== '\n') return false;
    // A line break ends the statement unless the expression clearly goes on.
    const before = text.slice(start, at).trimEnd();
    const after = text.slice(at).trimStart();
    return !/[=,(?:+\-*/&|.]$/.test(before) && !/^[.?:+\-*/&|,(]/.test(after) && before !== '';
  });
  let end = i;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end, esm: m[0].startsWith('export') };
}

/** The first top-level argument of the call whose `(` is at `open`: its start and end. */
function firstArgument(text: string, open: number): { start: number; end: number } {
  const i = topLevelStop(text, open + 1, matching(text, open), (c) => c === ',');
  let start = open + 1;
  while (/\s/.test(text[start]!)) start++;
  let end = i;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end };
}

/** The comma-separated items inside the bracket at `open`, trimmed, comments kept with the item they precede. */
function items(text: string, open: number): string[] {
  const close = matching(text, open);
  const out: string[] = [];
  let from = open + 1;
  for (let i = open + 1; i <= close; i++) {
    const s = skip(text, i);
    if (s !== i) {
      i = s - 1;
      continue;
    }
    const c = text[i]!;
    if (i < close && (c === '(' || c === '[' || c === '{')) i = matching(text, i);
    else if (c === ',' || i === close) {
      const item = text.slice(from, i).trim();
      if (item) out.push(item);
      from = i + 1;
    }
  }
  return out;
}

const keyOf = (entry: string) => /^(?:\s*(?:\/\/[^\n]*\n|\/\*[\s\S]*?\*\/))*\s*['"]?([\w$]+)['"]?\s*:/.exec(entry)?.[1];

/**
 * The options an earlier wrapper had that this run does not write (isolation, quiet, ...): kept
 * by --force, so that writing again changes only what init infers.
 */
export function keptOptions(text: string, ours: string[]): string[] {
  const at = text.indexOf('withFastTestDb(');
  if (at < 0) return [];
  const open = at + 'withFastTestDb'.length;
  const args = items(text, open);
  const second = args[1];
  if (!second?.startsWith('{')) return [];
  const start = text.indexOf(second, open);
  const written = new Set(ours.map(keyOf));
  return items(text, start)
    .filter((e) => !written.has(keyOf(e)))
    .map((e) => e.replace(/\n\s*/g, '\n  ').trim());
}

/**
 * A config an earlier init (or its user) wrapped: back to the config it wrapped, without our
 * imports, so that --force writes one wrapper with the options of this run rather than two.
 */
export function unwrap(text: string, ours: string[] = []): string {
  if (!text.includes('withFastTestDb(')) return text;
  let out = text;
  for (const line of ours) out = out.replace(`${line}\n`, '');
  for (let at = out.indexOf('withFastTestDb('); at >= 0; at = out.indexOf('withFastTestDb(')) {
    const open = at + 'withFastTestDb'.length;
    const close = matching(out, open);
    const arg = firstArgument(out, open);
    out = out.slice(0, at) + out.slice(arg.start, arg.end) + out.slice(close + 1);
  }
  return out
    .replace(/^import [^;\n]*from ['"]fast-test-db[^'"]*['"];?[ \t]*\n/gm, '')
    .replace(/^const \{[^}]*\} = require\(['"]fast-test-db[^'"]*['"]\);?[ \t]*\n/gm, '')
    .replace(/^import \{ createRequire \} from 'node:module';\nconst requireApp = createRequire\(import\.meta\.url\);\n/m, '')
    .replace(/^(import [^;\n]*;\n)+\n?/m, (block) => block)
    .replace(/\n{3,}/g, '\n\n');
}

/** Wraps `expr` (inside `defineConfig(...)` when it is one) as withFastTestDb(expr, options). */
function wrap(text: string, entries: string[]): string {
  const at = exportedExpression(text);
  if (!at)
    throw new FastTestDbError(
      'UNSUPPORTED',
      'found no `module.exports =` or `export default` in the runner config',
      'wrap the exported config in withFastTestDb(config, options) by hand (docs/adopting.md, step 2)',
    );
  let { start, end } = at;
  const expr = text.slice(start, end);
  const define = /^(defineConfig|defineProject)\s*\(/.exec(expr);
  if (define) {
    const open = start + define[0].length - 1;
    const close = matching(text, open);
    start = open + 1;
    end = close;
    while (/\s/.test(text[start]!)) start++;
    while (end > start && /[\s,]/.test(text[end - 1]!)) end--;
  }
  const inner = text.slice(start, end);
  if (/^(async\b|function\b|\(\s*\)\s*=>|\([^)]*\)\s*=>|\w+\s*=>|mergeConfig\b)/.test(inner))
    throw new FastTestDbError(
      'UNSUPPORTED',
      'the runner config exports a function or a merged config, which withFastTestDb cannot wrap from outside',
      'wrap the object it returns in withFastTestDb(config, options) by hand (docs/adopting.md, step 2)',
    );
  const multiline = inner.includes('\n') || entries.length > 0;
  // The options go at the indent of the line the wrapped config starts on.
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const args = entries.length ? optionsArg(entries, indent) : '';
  const wrapped = multiline && entries.length ? `withFastTestDb(${inner}, ${args})` : `withFastTestDb(${inner})`;
  return text.slice(0, start) + wrapped + text.slice(end);
}

/** True when `text` already imports what `line` would, from the same module with or without its extension. */
function importsAlready(text: string, line: string): boolean {
  const m = /^import (.+) from '([^']+)';$/.exec(line);
  if (!m) return false;
  const [, clause, spec] = m;
  const bare = spec!.replace(/\.[cm]?[jt]s$/, '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const binding = clause!
    .replace(/[{}*]|\bas\b/g, ' ')
    .trim()
    .split(/\s+/)
    .pop()!;
  return new RegExp(`^import [^;]*\\b${binding}\\b[^;]*from ['"]${bare}(\\.[cm]?[jt]s)?['"]`, 'm').test(text);
}

/** Adds lines after the file's last top-level import (or its leading comment), once each. */
function addImports(text: string, lines: string[]): string {
  const fresh = [...new Set(lines)].filter((l) => !text.includes(l) && !importsAlready(text, l));
  if (!fresh.length) return text;
  const imports = [
    ...text.matchAll(
      /^(import\s[^;]*?from\s*['"][^'"]+['"];?|import\s*['"][^'"]+['"];?|const\s+\{?[^=]*\}?\s*=\s*require\([^)]*\);?)[ \t]*$/gm,
    ),
  ];
  const last = imports[imports.length - 1];
  if (last) {
    const at = last.index! + last[0].length;
    return `${text.slice(0, at)}\n${fresh.join('\n')}${text.slice(at)}`;
  }
  const comment = /^(\s*(\/\*[\s\S]*?\*\/|(\/\/[^\n]*\n)+)\s*)/.exec(text);
  const at = comment ? comment[0].length : 0;
  return `${text.slice(0, at)}${fresh.join('\n')}\n\n${text.slice(at)}`;
}

/** Removes the `globalSetup: '…'` property that names `file` (the template replaces it). */
function dropGlobalSetup(text: string, file: string): string {
  const re = new RegExp(
    `^[ \\t]*globalSetup\\s*:\\s*\\[?\\s*['"](?:<rootDir>/|\\./)?${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]\\s*\\]?\\s*,?[ \\t]*(//[^\\n]*)?\\n`,
    'm',
  );
  return text.replace(re, '');
}

const isEsmFile = (file: string, p: Project) =>
  /\.m[jt]s$/.test(file) || (/\.[jt]s$/.test(file) && !/\.c[jt]s$/.test(file) && (p.esm || file.endsWith('.ts')));

function jestConfig(p: Project, plan: Plan): FileChange[] {
  const cfg = p.runnerConfig;
  if (cfg?.packageKey) {
    // Jest refuses a config file beside a "jest" key: the key moves into jest.config.js, wrapped.
    const { jest, ...rest } = p.pkg;
    const config = { ...(jest as Record<string, unknown>) };
    if (plan.dropGlobalSetup) delete config.globalSetup;
    const name = p.esm ? 'jest.config.cjs' : 'jest.config.js';
    const { entries } = renderOptions(plan, { module: 'cjs', ts: false });
    const body = JSON.stringify(config, null, 2).replace(/\n/g, '\n  ');
    const next = `const { withFastTestDb } = require('fast-test-db/jest');\n\nmodule.exports = withFastTestDb(\n  ${body},\n  ${optionsArg(entries, '  ') || '{}'},\n);\n`;
    const old = p.files.read('package.json')!;
    const indent = /^\{\n([ \t]+)/.exec(old)?.[1] ?? '  ';
    return [
      { path: name, old: undefined, next },
      { path: 'package.json', old, next: `${JSON.stringify(rest, null, indent)}\n` },
    ];
  }
  if (!cfg) {
    const name = p.esm ? 'jest.config.cjs' : 'jest.config.js';
    const { entries } = renderOptions(plan, { module: 'cjs', ts: false });
    return [
      {
        path: name,
        old: undefined,
        next: `const { withFastTestDb } = require('fast-test-db/jest');\n\nmodule.exports = withFastTestDb({}, ${optionsArg(entries, '') || '{}'});\n`,
      },
    ];
  }
  const old = p.files.read(cfg.file)!;
  let text = plan.dropGlobalSetup ? dropGlobalSetup(old, plan.dropGlobalSetup) : old;
  const esm = exportedExpression(text)?.esm ?? isEsmFile(cfg.file, p);
  const ts = /\.[cm]?ts$/.test(cfg.file);
  // A TypeScript config compiles to CommonJS under ts-node, where require is there; native ESM needs one made.
  const requireName = esm && !ts ? 'requireApp' : undefined;
  const { entries } = renderOptions(plan, { module: esm && !ts ? 'esm' : 'cjs', ts, requireName });
  text = wrap(unwrap(text), [...keptOptions(text, entries), ...entries]);
  if (esm) {
    const lines = ["import { withFastTestDb } from 'fast-test-db/jest';"];
    if (requireName && plan.recipe)
      lines.push("import { createRequire } from 'node:module';", `const ${requireName} = createRequire(import.meta.url);`);
    text = addImports(text, lines);
  } else text = addImports(text, ["const { withFastTestDb } = require('fast-test-db/jest');"]);
  return [{ path: cfg.file, old, next: text }];
}

function vitestConfig(p: Project, plan: Plan): FileChange[] {
  const cfg = p.runnerConfig;
  const file = cfg?.file ?? (p.typescript ? 'vitest.config.ts' : 'vitest.config.mjs');
  const ts = /\.[cm]?ts$/.test(file);
  const { imports, entries } = renderOptions(plan, { module: 'esm', ts });
  if (!cfg) {
    const next = [
      "import { defineConfig } from 'vitest/config';",
      "import { withFastTestDb } from 'fast-test-db/vitest';",
      ...imports,
      '',
      `export default defineConfig(withFastTestDb({}, ${optionsArg(entries, '') || '{}'}));`,
      '',
    ].join('\n');
    return [{ path: file, old: undefined, next }];
  }
  const old = p.files.read(file)!;
  let text = plan.dropGlobalSetup ? dropGlobalSetup(old, plan.dropGlobalSetup) : old;
  text = wrap(unwrap(text, imports), [...keptOptions(text, entries), ...entries]);
  text = addImports(text, ["import { withFastTestDb } from 'fast-test-db/vitest';", ...imports]);
  return [{ path: file, old, next: text }];
}

/** Mocha and node:test: the options in fast-test-db.config.*, and the runner's flag in the test script. */
function configFileAndScript(p: Project, plan: Plan): FileChange[] {
  const file = p.typescript ? 'fast-test-db.config.ts' : 'fast-test-db.config.mjs';
  const { imports, entries } = renderOptions(plan, { module: 'esm', ts: p.typescript });
  const next = [
    "import { defineConfig } from 'fast-test-db';",
    ...imports,
    '',
    `export default defineConfig(${optionsArg(entries, '') || '{}'});`,
    '',
  ].join('\n');
  const changes: FileChange[] = [{ path: file, old: undefined, next }];
  const old = p.files.read('package.json')!;
  const scripts = (p.pkg.scripts as Record<string, string> | undefined) ?? {};
  const test = scripts.test;
  let script: string | undefined;
  if (test && p.runner.value === 'mocha' && !test.includes('fast-test-db/mocha'))
    script = test.replace(/\bmocha\b/, 'mocha --require fast-test-db/mocha');
  if (test && p.runner.value === 'node-test' && !test.includes('fast-test-db/node-test'))
    script = test.replace(/(\s)--test\b/, '$1--import fast-test-db/node-test --test');
  if (script && script !== test) {
    const from = `"test": ${JSON.stringify(test)}`;
    if (old.includes(from)) changes.push({ path: 'package.json', old, next: old.replace(from, `"test": ${JSON.stringify(script)}`) });
  } else if (!test)
    plan.left.push(
      `add the runner's hook to the command that runs the tests: ${p.runner.value === 'mocha' ? '--require fast-test-db/mocha' : '--import fast-test-db/node-test before --test'}`,
    );
  return changes;
}

export function render(p: Project, plan: Plan): FileChange[] {
  switch (plan.runner) {
    case 'jest':
      return jestConfig(p, plan);
    case 'vitest':
      return vitestConfig(p, plan);
    default:
      return configFileAndScript(p, plan);
  }
}
