/**
 * Writes what render.ts made, or refuses: a file init would change that already names fast-test-db
 * (a project adopted by hand, or a second init) and an existing fast-test-db.config.* are the
 * user's, and are only overwritten with --force. Nothing is written unless every file may be.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findConfigFile } from '../../options/config.js';
import { FastTestDbError } from '../../errors.js';
import type { FileChange } from './render.js';

/** The files init may not change without --force, each with why. */
export function refusals(dir: string, changes: FileChange[]): string[] {
  const out: string[] = [];
  const config = findConfigFile(dir);
  if (config) out.push(`${config.slice(dir.length + 1)} exists (the project has fast-test-db options already)`);
  for (const c of changes) {
    if (c.old === undefined) continue;
    // package.json names the package once it is installed: only its scripts and a "jest" key count.
    const text = c.path === 'package.json' ? scriptsAndJest(c.old) : c.old;
    if (/fast-test-db/.test(text)) out.push(`${c.path} already uses fast-test-db`);
  }
  return out;
}

function scriptsAndJest(pkgText: string): string {
  try {
    const pkg = JSON.parse(pkgText) as Record<string, unknown>;
    return JSON.stringify([pkg.scripts, pkg.jest, pkg.mocha]);
  } catch {
    return '';
  }
}

export function write(dir: string, changes: FileChange[], { force }: { force: boolean }): void {
  const refused = refusals(dir, changes);
  if (refused.length && !force)
    throw new FastTestDbError(
      'WOULD_OVERWRITE',
      `init changes nothing here: ${refused.join('; ')}`,
      'review the diff with --dry-run, then run again with --force to write it anyway',
    );
  for (const c of changes) {
    const file = join(dir, c.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, c.next);
  }
}
