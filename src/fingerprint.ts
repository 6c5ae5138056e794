/**
 * The template fingerprint: everything that decides what the migrated schema looks like. Same
 * fingerprint, same template; change one byte of a migration file and a new template is built.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { FastTestDbError } from './errors.js';
import { VERSION } from './version.js';

export interface FingerprintInput {
  engine: string;
  flavor: string;
  serverMajor: number;
  cacheKey?: string;
  migrationFiles?: string | string[];
  unlogged: boolean;
  /** Whether a migrate function was given at all (an empty template differs from a migrated one). */
  migrates: boolean;
}

export async function fingerprint(input: FingerprintInput, cwd = process.cwd()): Promise<string> {
  const hash = createHash('sha256');
  const { migrationFiles, ...rest } = input;
  hash.update(JSON.stringify({ tool: VERSION, ...rest }));
  if (migrationFiles !== undefined) {
    const { glob } = await import('tinyglobby');
    const files = (await glob(migrationFiles, { cwd, absolute: true, dot: true })).sort();
    if (files.length === 0)
      throw new FastTestDbError('BAD_OPTION', `migrationFiles ${JSON.stringify(migrationFiles)} matched no file under ${cwd}`, 'fix the glob (relative to the working directory), or leave migrationFiles out and pass cacheKey');
    for (const file of files) hash.update(`\0${relative(cwd, file)}\0`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}
