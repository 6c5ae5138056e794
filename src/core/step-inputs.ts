/**
 * What a `migrate` or `seed` given as a module or a command reads, found without running it, so
 * that the fingerprint covers it with nothing listed by hand:
 * - a module: its file and every project file it imports, followed through relative static
 *   imports (`import … from './x'`, `export … from`, `require('./x')`, `import('./x')` with a literal);
 * - a command: every word of it that names a file of the project (and that file's imports, for a
 *   module), and the package.json script it runs (`npm run db:seed`, `yarn db:seed`, `pnpm …`,
 *   `bun run …`): the script's text, and what that names in turn.
 * Imports of packages (node_modules) and files outside the project are not followed: the lock file
 * and the package versions are not part of the fingerprint. Files read at run time (SQL files, a glob
 * of migrations) are not seen: name them in migrationFiles.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Migrate } from '../types.js';

export interface StepInputs {
  /** Absolute paths of the project files it reads, sorted. */
  files: string[];
  /** package.json scripts it runs, as `name=text`. */
  scripts: string[];
}

const IMPORTS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
/** A package manager running a script: `npm run x`, `npm run-script x`, `yarn x`, `yarn run x`, `pnpm x`, `bun run x`. */
const SCRIPT_RUN = /^(?:npm\s+(?:run|run-script)|yarn(?:\s+run)?|pnpm(?:\s+run)?|bun\s+run)\s+([\w:.@/-]+)/;
const PM_COMMANDS = new Set(['install', 'add', 'exec', 'dlx', 'x', 'create', 'init', 'remove', 'why', 'info', 'workspace']);

const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

const inProject = (path: string, cwd: string) => {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(/[\\/]/).includes('node_modules');
};

/** The file a relative specifier names, as TypeScript and tsx resolve it ('./x.js' may be x.ts). */
function resolveSpecifier(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = [base];
  const js = base.match(/^(.*)\.(js|jsx|mjs|cjs)$/);
  if (js) candidates.push(`${js[1]}.ts`, `${js[1]}.tsx`, `${js[1]}.mts`, `${js[1]}.cts`);
  for (const ext of EXTENSIONS) candidates.push(base + ext);
  for (const ext of EXTENSIONS) candidates.push(join(base, `index${ext}`));
  return candidates.find(isFile);
}

/** `file` and the project files it imports, recursively, into `seen`. */
function followImports(file: string, cwd: string, seen: Set<string>): void {
  // A module that does not exist fails when it is run, with the path it was looked for at.
  if (seen.has(file) || !inProject(file, cwd) || !isFile(file)) return;
  seen.add(file);
  if (!CODE.test(file)) return;
  const text = readFileSync(file, 'utf8');
  for (const pattern of IMPORTS)
    for (const m of text.matchAll(pattern)) {
      const spec = m[1]!;
      if (!spec.startsWith('.') && !spec.startsWith('/')) continue;
      const found = resolveSpecifier(file, spec);
      if (found) followImports(found, cwd, seen);
    }
}

function readScripts(cwd: string): Record<string, string> {
  const pkg = join(cwd, 'package.json');
  if (!existsSync(pkg)) return {};
  try {
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
  } catch {
    return {};
  }
}

/** The files a command names and the scripts it runs, into `out`. */
function commandInputs(command: string, cwd: string, out: { seen: Set<string>; scripts: Map<string, string> }): void {
  const scripts = readScripts(cwd);
  for (const part of command.split(/&&|\|\||[;|&]/)) {
    const words = part.trim().replace(/^(?:\w+=\S*\s+)+/, ''); // leading VAR=value assignments
    const run = words.match(SCRIPT_RUN);
    const name = run?.[1];
    if (name && !PM_COMMANDS.has(name) && scripts[name] !== undefined && !out.scripts.has(name)) {
      out.scripts.set(name, scripts[name]);
      commandInputs(scripts[name], cwd, out);
    }
    for (const raw of words.split(/\s+/)) {
      const word = raw.replace(/^['"]|['"]$/g, '').replace(/^--?[\w-]+=/, '');
      if (!word || word.startsWith('-')) continue;
      const path = resolve(cwd, word);
      if (isFile(path)) followImports(path, cwd, out.seen);
    }
  }
}

/** What `step` reads, when it is a module or a command; a function's inputs cannot be seen. */
export function stepInputs(step: Migrate | undefined, cwd = process.cwd()): StepInputs {
  const out = { seen: new Set<string>(), scripts: new Map<string, string>() };
  if (typeof step === 'object') followImports(resolve(cwd, step.module), cwd, out.seen);
  else if (typeof step === 'string') commandInputs(step, cwd, out);
  return { files: [...out.seen].sort(), scripts: [...out.scripts].map(([k, v]) => `${k}=${v}`) };
}
