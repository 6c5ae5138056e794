/** Server options shared by the commands: the project's config file, then the command line on top. */
import { loadConfig, mergeConfig } from '../options/config.js';
import type { FastTestDbConfig } from '../types.js';
import { engineNamed } from '../engines/index.js';
import { FastTestDbError } from '../errors.js';
import type { EngineName } from '../types.js';
import { str, type OptionSpec } from './command.js';
import { checkEntry, resolveOptions } from '../options/resolve.js';

export const SERVER_OPTIONS: OptionSpec = {
  engine: { type: 'string', short: 'e' },
  'bin-dir': { type: 'string' },
  'data-root': { type: 'string' },
  'max-connections': { type: 'string' },
};

export const SERVER_HELP = `  -e, --engine E    postgres (default) or mysql (MySQL or MariaDB)
  --bin-dir DIR     directory holding the server binaries (default: found automatically)
  --data-root DIR   where our servers keep their data (default /dev/shm)
  --max-connections N`;

export function parseEngine(v: string | undefined): EngineName | undefined {
  if (v === undefined) return undefined;
  const engine = engineNamed(v);
  if (engine) return engine.name;
  throw new FastTestDbError('BAD_OPTION', `unknown engine "${v}"`, 'use --engine postgres or --engine mysql (MariaDB is mysql)');
}

export function parseCount(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new FastTestDbError('BAD_OPTION', `--${name} must be a positive whole number, not "${v}"`, `e.g. --${name} 5432`);
  return n;
}

/** `engineGiven`: the engine came from the command line, the config or FAST_TEST_DB_ENGINE, not the default. */
export async function serverOptions(
  values: Record<string, string | boolean | undefined>,
  env: Readonly<NodeJS.ProcessEnv>,
): Promise<FastTestDbConfig & { engine: EngineName; engineGiven: boolean }> {
  const merged = mergeConfig(await loadConfig(), {
    engine: parseEngine(str(values.engine)),
    binDir: str(values['bin-dir']),
    dataRoot: str(values['data-root']),
    maxConnections: parseCount('max-connections', str(values['max-connections'])),
  });
  checkEntry(merged, 'fast-test-db options', { config: true, env });
  const given = merged.engine ?? parseEngine(resolveOptions({}, env).engine);
  return { ...merged, engine: given ?? 'postgres', engineGiven: given !== undefined };
}
