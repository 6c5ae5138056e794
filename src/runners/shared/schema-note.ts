/**
 * node:test has no config of its own to wrap: `migrate` (or an `adapter`) comes only from
 * fast-test-db.config.*. Without it every file gets an empty database, and the first query fails
 * with `relation "…" does not exist`, which names no cause. This says the cause, once per run.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pidAlive } from '../../server/os/lock.js';
import { CONFIG_PATTERN } from '../../options/config.js';

/**
 * The mark that a run's note was printed, beside the run directory (which each file's process
 * removes when it looks empty, so a later file would print again); it holds the pid the run lives as.
 */
const MARK = '.no-schema-noted-';

/** The note, or undefined when something builds the schema. */
export function noSchemaNote(file: string | undefined, config: { migrate?: unknown; adapter?: unknown }, cwd: string): string | undefined {
  if (config.migrate || config.adapter) return undefined;
  const why = file
    ? `${file} gives neither migrate nor adapter`
    : `no ${CONFIG_PATTERN} in ${cwd}, where fast-test-db/node-test reads migrate from`;
  return (
    `fast-test-db: ${why}, so every test file gets an empty database (queries fail with "relation ... does not exist" or "Table ... doesn't exist")\n` +
    `  fix: ${file ? `add migrate (or an ORM adapter) to ${file}` : `create ${join(cwd, 'fast-test-db.config.mjs')}`}: ` +
    "export default { migrationFiles: 'migrations/*.sql', migrate: async (url) => { /* run your migrations against url */ } }"
  );
}

/**
 * Prints `note` unless another process of the run of `dir` already did. `runPid` is the process the
 * run lives as (the `node --test` process): marks of runs whose process is gone are removed here.
 * `mark` names the kind of note, so that each kind is printed once per run.
 */
export function noteOnce(dir: string, runPid: number, note: string | undefined, mark = MARK): void {
  if (!note) return;
  const parent = dirname(dir);
  for (const f of readdirSync(parent)) {
    if (!f.startsWith(mark)) continue;
    const pid = Number(readFileSync(join(parent, f), 'utf8'));
    if (pid && !pidAlive(pid)) rmSync(join(parent, f), { force: true });
  }
  try {
    writeFileSync(join(parent, mark + basename(dir)), String(runPid), { flag: 'wx' });
  } catch {
    return; // printed by another file's process
  }
  process.stderr.write(`${note}\n`);
}
