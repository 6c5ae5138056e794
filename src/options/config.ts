/**
 * The optional project config file, `fast-test-db.config.*` (the extensions in CONFIG_FILES), read
 * by the runner integrations and the CLI alike. Explicit options always override what the file says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FastTestDbError, isFastTestDbError, messageOf } from '../errors.js';
import { logger } from '../util/log.js';
import { loadPeer } from '../util/peer.js';
import { settleUntested } from '../util/tested.js';
import type { FastTestDbConfig, RunnerOptions, TestDatabaseOptions } from '../types.js';
import { resolveOptions } from './resolve.js';
import { checkOptions } from './schema.js';

const log = logger('config');

/** Searched in this order; the first file found wins. */
export const CONFIG_FILES = [
  'fast-test-db.config.ts',
  'fast-test-db.config.mts',
  'fast-test-db.config.cts',
  'fast-test-db.config.mjs',
  'fast-test-db.config.js',
  'fast-test-db.config.cjs',
  'fast-test-db.config.json',
] as const;

/** CONFIG_FILES as one name for help texts and docs: `fast-test-db.config.{ts,mts,…,json}`. */
export const CONFIG_PATTERN = `fast-test-db.config.{${CONFIG_FILES.map((f) => f.slice('fast-test-db.config.'.length)).join(',')}}`;

/** Identity helper that gives a `fast-test-db.config.ts` its types. */
export function defineConfig(config: FastTestDbConfig): FastTestDbConfig {
  return config;
}

export function findConfigFile(cwd: string = process.cwd()): string | undefined {
  for (const name of CONFIG_FILES) {
    const file = join(resolve(cwd), name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** The config file's contents and where they came from; `{ config: {} }` when there is no file. */
export async function loadConfigFile(cwd: string = process.cwd()): Promise<{ file?: string; config: FastTestDbConfig }> {
  const file = findConfigFile(cwd);
  if (!file) return { config: {} };
  let value: unknown;
  try {
    value = file.endsWith('.json') ? JSON.parse(readFileSync(file, 'utf8')) : await importConfig(file);
  } catch (e) {
    if (e instanceof FastTestDbError) throw e;
    throw new FastTestDbError(
      'BAD_OPTION',
      `could not load ${file}: ${messageOf(e)}`,
      'fix the error in the config file; it must export the options as its default export',
      { cause: e },
    );
  }
  const config = unwrapDefault(value);
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new FastTestDbError(
      'BAD_OPTION',
      `${file} does not export an options object`,
      'write `export default defineConfig({ ... })` (or a JSON object in the .json file)',
    );
  checkOptions(config, file, { config: true });
  log('loaded %s', file);
  return { file, config: config as FastTestDbConfig };
}

/** The config file's options (or `{}`), for the runners and the CLI. */
export async function loadConfig(cwd: string = process.cwd()): Promise<FastTestDbConfig> {
  return (await loadConfigFile(cwd)).config;
}

/** File options, then explicit ones on top; `undefined` in `explicit` does not erase a file value. */
export function mergeConfig(file: FastTestDbConfig, explicit: FastTestDbConfig = {}): FastTestDbConfig {
  const out: FastTestDbConfig = { ...file };
  for (const [k, v] of Object.entries(explicit)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Resolves `adapter` into plain options; explicit migrate/seed/cacheKey/migrationFiles win over the adapter's. */
export async function resolveAdapter(
  config: FastTestDbConfig,
  env: Readonly<NodeJS.ProcessEnv> = process.env,
): Promise<TestDatabaseOptions & RunnerOptions> {
  const { adapter, ...rest } = config;
  const given = resolveOptions(rest, env);
  // Before the adapter loads its ORM: the version line it may raise, and a failure of its own after
  // that line, come out under the entry's quiet, which the rest of the config already says.
  settleUntested(given.quiet);
  if (!adapter) return rest;
  const source = typeof adapter === 'function' ? await adapter() : adapter;
  const givenEngine = given.engine;
  if (source.engine && givenEngine && source.engine !== givenEngine)
    throw new FastTestDbError(
      'BAD_OPTION',
      `the engine is '${givenEngine}', but the config's adapter builds a schema for '${source.engine}'`,
      `use engine '${source.engine}' (--engine ${source.engine}, the engine option or FAST_TEST_DB_ENGINE), or an adapter written for '${givenEngine}'`,
    );
  return {
    ...rest,
    engine: givenEngine ?? source.engine,
    migrate: rest.migrate ?? source.migrate,
    seed: rest.seed ?? source.seed,
    cacheKey: rest.cacheKey ?? source.cacheKey,
    migrationFiles: rest.migrationFiles ?? source.migrationFiles,
  };
}

function unwrapDefault(value: unknown): unknown {
  let v = value;
  // ESM default export; CommonJS module.exports seen through import() is wrapped once more.
  for (let i = 0; i < 2 && v && typeof v === 'object' && 'default' in v; i++) v = (v as { default: unknown }).default;
  return v;
}

const TS_FILE = /\.[mc]?ts$/;

/**
 * Node's own import(), for the CommonJS build, whose bundler rewrites import() into require():
 * that cannot load a file URL nor an ES module with top-level await. Tried second, because code
 * evaluated by a module runner (Vitest's) has no import() callback for functions made this way.
 */
const nativeImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

async function importUrl(url: string): Promise<unknown> {
  try {
    return await import(url);
  } catch (first) {
    // Only a require() that could not take the URL is worth a second try; report that one's error.
    const code = (first as { code?: string }).code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw first;
    return nativeImport(url);
  }
}

/**
 * JavaScript configs load with a plain import(). A TypeScript config loads natively where the
 * process already understands TypeScript (tsx, vitest, Node with type stripping), else through
 * tsx's API when tsx is installed.
 */
async function importConfig(file: string): Promise<unknown> {
  const url = pathToFileURL(file).href;
  if (!TS_FILE.test(file)) return importUrl(url);
  try {
    return await importUrl(url);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (
      code !== 'ERR_UNKNOWN_FILE_EXTENSION' &&
      code !== 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING' &&
      !/Unknown file extension/.test(messageOf(e))
    )
      throw e;
  }
  // From a CommonJS build tsx's ESM API cannot find its own loader (it resolves it against its
  // CommonJS file), so CommonJS uses tsx's require(), which compiles the config to CommonJS.
  const commonJs = typeof require === 'function' && typeof module === 'object';
  try {
    if (commonJs) {
      const api = await loadPeer<{ require(id: string, parent: string): unknown }>('tsx/cjs/api', `loading ${file}`);
      return api.require(file, file);
    }
    const api = await loadPeer<{ tsImport(specifier: string, parent: string): Promise<unknown> }>('tsx/esm/api', `loading ${file}`);
    return await api.tsImport(url, pathToFileURL(join(dirname(file), 'noop.js')).href);
  } catch (e) {
    if (!isFastTestDbError(e, 'PEER_MISSING')) throw e;
    throw new FastTestDbError(
      'PEER_MISSING',
      `${file} is TypeScript and this process cannot load TypeScript`,
      `npm install --save-dev tsx, or write the config as ${file.replace(TS_FILE, '.mjs')}`,
      { cause: e },
    );
  }
}
