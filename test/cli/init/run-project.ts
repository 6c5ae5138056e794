/**
 * Running a generated project's suite after init, without an install: its node_modules links to
 * this repository's packages, and fast-test-db to this repository (its dist/, which `npm run
 * build` makes); the suite runs against a server registry of its own (a private data root).
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { expect } from 'vitest';
import { ROOT, runReporting, sandbox, waitNoProcesses } from '../../runners/harness.js';

export const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].some((b) => existsSync(b));

export function expectBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/jest.cjs')))
    throw new Error('these tests run the built package: run `npm run build` first (npm test does)');
}

/** node_modules of links: every package of this repository, and fast-test-db itself. */
export function linkModules(dir: string): void {
  const nm = join(dir, 'node_modules');
  mkdirSync(nm, { recursive: true });
  for (const e of readdirSync(join(ROOT, 'node_modules')))
    if (e !== '.bin' && e !== 'fast-test-db') symlinkSync(join(ROOT, 'node_modules', e), join(nm, e));
  symlinkSync(ROOT, join(nm, 'fast-test-db'));
}

/** Runs `command` in the project; no server or keeper of the run may outlive it. */
export async function runSuite(name: string, dir: string, command: string, args: string[], env: Record<string, string> = {}) {
  const sb = sandbox(name);
  try {
    // A server the run starts is kept for the next run by default on a developer's machine: not here.
    const r = await runReporting(command, args, dir, { ...sb.env, FAST_TEST_DB_REUSE: '0', ...env }, join(sb.dir, 'report.jsonl'));
    expect(await waitNoProcesses(sb.dataRoot)).toEqual([]);
    return { ...r, output: stripVTControlCharacters(r.output) };
  } finally {
    await sb.cleanup();
  }
}

/** @swc/jest's options for TypeORM entities: decorators with their metadata. */
export const SWC = `{ jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' }, module: { type: 'commonjs' } }`;
