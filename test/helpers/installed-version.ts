/**
 * The version matrix: another major of an ORM is installed beside the main one under an npm alias
 * ("typeorm-0.3": "npm:typeorm@0.3.31"). A test file calls useInstalled() and then imports the
 * shared suite dynamically: every module loaded from then on, the adapter under test included,
 * gets the aliased copy for `name` and its subpaths. Each test file runs in its own process
 * (pool 'forks'), so one version never leaks into another file.
 */
import { readFileSync } from 'node:fs';
import { vi } from 'vitest';

async function load(specifier: string): Promise<Record<string, unknown>> {
  const mod = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
  // CommonJS packages (TypeORM 0.2) may expose their exports only on `default`.
  const def = mod.default;
  return def && typeof def === 'object' ? { ...def, ...mod } : mod;
}

/**
 * Mocks `name` and its subpath `entries` ('' is the package itself) with the aliased copy's, and
 * returns the copy's module for the first entry, so that a suite can check it is the one in use.
 */
export async function useInstalled(name: string, alias: string, entries: string[] = ['']): Promise<Record<string, unknown>> {
  const at = (base: string, sub: string) => (sub ? `${base}/${sub}` : base);
  for (const sub of entries) vi.doMock(at(name, sub), () => load(at(alias, sub)));
  return load(at(alias, entries[0] ?? ''));
}

/** The version of a package as installed in this repository (for test names). */
export function installedVersion(name: string): string {
  const root = new URL('../../node_modules/', import.meta.url);
  return (JSON.parse(readFileSync(new URL(`${name}/package.json`, root), 'utf8')) as { version: string }).version;
}
