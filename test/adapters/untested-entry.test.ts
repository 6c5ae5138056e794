/**
 * An adapter's own entry (drizzleTestDb here) in a project whose ORM is outside the tested versions,
 * whose template then fails before any database is made: the line still comes out, beside the
 * failure it is for, and not when the entry is quiet, by its option or by FAST_TEST_DB_QUIET.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const project = mkdtempSync(join(tmpdir(), 'ftdb-untested-entry-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

mkdirSync(join(project, 'node_modules/drizzle-orm'), { recursive: true });
writeFileSync(
  join(project, 'node_modules/drizzle-orm/package.json'),
  JSON.stringify({ name: 'drizzle-orm', version: '0.42.1', main: 'index.js' }),
);
writeFileSync(join(project, 'node_modules/drizzle-orm/index.js'), '');
writeFileSync(
  join(project, 'entry.mts'),
  `import { drizzleTestDb } from ${JSON.stringify(pathToFileURL(join(ROOT, 'adapters/drizzle/index.ts')).href)};
await drizzleTestDb({ schema: {}, migrationsFolder: 'no-such-folder', ...(process.env.ENTRY_QUIET ? { quiet: true } : {}) })
  .catch((e) => console.error('failed:', e.code));
`,
);

function entry(env: Record<string, string>): string[] {
  const { FAST_TEST_DB_QUIET: _, ...outer } = process.env;
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/esm/index.mjs')).href, 'entry.mts'], {
    cwd: project,
    env: { ...outer, ...env },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stderr.split('\n').filter(Boolean);
}

it('the line, then the failure', () => {
  expect(entry({})).toEqual([
    expect.stringMatching(/^fast-test-db: drizzle-orm 0\.42\.1 is not one of the tested versions/),
    'failed: BAD_OPTION',
  ]);
});

it('quiet: true, or FAST_TEST_DB_QUIET=1: the failure alone', () => {
  expect(entry({ ENTRY_QUIET: '1' })).toEqual(['failed: BAD_OPTION']);
  expect(entry({ FAST_TEST_DB_QUIET: '1' })).toEqual(['failed: BAD_OPTION']);
});
