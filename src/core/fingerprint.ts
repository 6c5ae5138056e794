/**
 * The template fingerprint: everything that decides what the migrated schema looks like. Same
 * fingerprint, same template; change one byte of a migration file and a new template is built.
 *
 * A `migrate` function given alone (no cacheKey, no migrationFiles) has inputs we cannot see: its
 * source text is hashed, but not the code it calls (a migrator, SQL files it reads). Such a template
 * is scoped to one run (runScope): the next run builds its own, so an edit anywhere is never hidden
 * behind a cached template. migrationFiles or cacheKey vouch for the inputs and share it across runs.
 * A module or command `migrate` or `seed` adds what it is seen to read (step-inputs.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { FastTestDbError } from '../errors.js';
import { VERSION } from '../util/version.js';
import { statFields } from '../server/os/proc-stat.js';

export interface FingerprintInput {
  engine: string;
  flavor: string;
  serverMajor: number;
  cacheKey?: string;
  migrationFiles?: string | string[];
  unlogged: boolean;
  /** Whether a migrate function was given at all (an empty template differs from a migrated one). */
  migrates: boolean;
  /** Hash of migrate's source text. */
  migrateSource?: string;
  /** A migrate given as a command: the command itself (what it reads: migrationFiles, inputFiles). */
  migrateCommand?: string;
  /** A migrate given as a module: its path and export. */
  migrateModule?: { module: string; export?: string };
  /** The seed, when there is one, in the same three shapes (absent keys leave older fingerprints as they were). */
  seeds?: true;
  seedSource?: string;
  seedCommand?: string;
  seedModule?: { module: string; export?: string };
  /** Project files a module or command step reads (step-inputs.ts): path and bytes. */
  inputFiles?: string[];
  /** package.json scripts a command step runs, as name=text. */
  scripts?: string[];
  /** The run an unverifiable template belongs to (see runScope). */
  scope?: string;
}

/** Whether nothing but migrate's own text describes what the template holds. */
export function unverifiable(options: {
  migrate?: unknown;
  seed?: unknown;
  cacheKey?: string;
  migrationFiles?: string | string[];
}): boolean {
  return Boolean(options.migrate || options.seed) && options.cacheKey === undefined && options.migrationFiles === undefined;
}

/**
 * What a run whose template is scoped to it prints, every run (not only the first: the cost recurs),
 * where its status line goes: the template is never reused, and nothing else would say so.
 */
export const RUN_SCOPED_NOTE =
  "fast-test-db: the template is built again on every run: migrate alone does not say what it reads. Add migrationFiles: 'migrations/**' (the files migrate reads) or a cacheKey to reuse it across runs.";

export function sourceHash(fn: (...args: never[]) => unknown): string {
  return createHash('sha256').update(fn.toString()).digest('hex').slice(0, 16);
}

const processScope = `p${process.pid}-${randomBytes(4).toString('hex')}`;

/**
 * One run: the run id when there is one (a runner's workers have the run of its handoff, CI jobs
 * have theirs); else the parent process when it is Node (a test runner whose workers we are,
 * told apart from an earlier runner with the same pid by its start time); else this process alone.
 */
export function runScope(run: string | undefined): string {
  if (run) return `r${run}`;
  try {
    const cmd = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    if (/(^|\/)node[^/]*$/.test(cmd)) {
      const started = statFields(process.ppid)?.[19];
      if (started) return `pp${process.ppid}-${started}`;
    }
  } catch {
    // No /proc (macOS, Windows): this process alone.
  }
  return processScope;
}

export async function fingerprint(input: FingerprintInput, cwd = process.cwd()): Promise<string> {
  const hash = createHash('sha256');
  const { migrationFiles, inputFiles, ...rest } = input;
  hash.update(JSON.stringify({ tool: VERSION, ...rest }));
  for (const file of inputFiles ?? []) hash.update(`\0${relative(cwd, file)}\0`).update(readFileSync(file));
  if (migrationFiles !== undefined) {
    const { glob } = await import('tinyglobby');
    const files = (await glob(migrationFiles, { cwd, absolute: true, dot: true })).sort();
    if (files.length === 0)
      throw new FastTestDbError(
        'BAD_OPTION',
        `migrationFiles ${JSON.stringify(migrationFiles)} matched no file under ${cwd}`,
        'fix the glob (relative to the working directory), or leave migrationFiles out and pass cacheKey',
      );
    for (const file of files) hash.update(`\0${relative(cwd, file)}\0`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}
