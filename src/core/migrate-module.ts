/**
 * A `migrate` or `seed` given as a module of the project ({ module: './db/seed.ts' }): what runs it.
 * It runs in a child `node --import tsx` process, not in the runner's: TypeScript app modules load
 * whether or not the runner transforms them for us (Jest's global setup does not), a module that
 * leaves a connection open cannot keep the run alive, and a timeout ends it like a command.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { FastTestDbError } from '../errors.js';
import type { MigrateModule } from '../types.js';

/** Env var names the child reads its job from (the code below is its whole program). */
export const MODULE_ENV = { path: 'FAST_TEST_DB_MIGRATE_MODULE', export: 'FAST_TEST_DB_MIGRATE_EXPORT', ctx: 'FAST_TEST_DB_MIGRATE_CTX' };

/**
 * The child's program: import the module, call its export `(url, ctx)` when it is a function, then
 * exit, so that a pool it left open does not hang the build. A named export that is missing, or no
 * default export in a module that exports functions, is an error: either would otherwise build an
 * empty template without a word (a module that only runs exports no function).
 */
const PROGRAM = `
const { pathToFileURL } = await import('node:url');
const env = process.env;
const name = env.${MODULE_ENV.export};
const mod = await import(pathToFileURL(env.${MODULE_ENV.path}).href);
let fn = name === 'default' ? (mod.default?.default ?? mod.default) : mod[name];
const fns = Object.keys(mod).filter((k) => typeof mod[k] === 'function');
if (name !== 'default' && fn === undefined) { console.error('the module has no export named ' + JSON.stringify(name) + '; its exports: ' + Object.keys(mod).join(', ')); process.exit(3); }
if (name === 'default' && fn === undefined && fns.length) { console.error('the module has no default export, and exports functions (' + fns.join(', ') + '): name the one to call, e.g. { module, export: ' + JSON.stringify(fns[0]) + ' }'); process.exit(3); }
if (typeof fn === 'function') await fn(env.DATABASE_URL, JSON.parse(env.${MODULE_ENV.ctx}));
process.exit(0);
`;

const TYPESCRIPT = /\.(ts|tsx|mts|cts)$/;

/** Whether `tsx` can be loaded from the project in `cwd`. */
function hasTsx(cwd: string): boolean {
  try {
    createRequire(join(cwd, 'package.json')).resolve('tsx/package.json');
    return true;
  } catch {
    return false;
  }
}

/** The node arguments that run `spec` in `cwd`; a missing file or a missing tsx fails here, with the fix. */
export function moduleCommand(spec: MigrateModule, cwd: string, what: string): { args: string[]; path: string; exportName: string } {
  const path = resolve(cwd, spec.module);
  if (!existsSync(path))
    throw new FastTestDbError(
      'BAD_OPTION',
      `the ${what} module ${spec.module} does not exist (looked for ${path})`,
      `give its path relative to the working directory (${cwd}), e.g. { module: './db/${what}.ts' }`,
    );
  const ts = TYPESCRIPT.test(path);
  if (ts && !hasTsx(cwd))
    throw new FastTestDbError(
      'PEER_MISSING',
      `the ${what} module ${spec.module} is TypeScript, and running it needs the package "tsx", which is not installed in ${cwd}`,
      'npm install --save-dev tsx (or point module at a compiled .js file)',
    );
  const args = [...(ts ? ['--import', 'tsx'] : []), '--input-type=module', '--eval', PROGRAM];
  return { args, path, exportName: spec.export ?? 'default' };
}
