/** A version outside the tested ones gets one line naming them, once per package; a tested one, none. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { untestedNoted } from '../../src/state.js';
import { installedVersion, noteInstalled, noteUntested, settleUntested, TESTED, untestedNote } from '../../src/util/tested.js';

// The state lives on the global object, which test files run in one process share.
beforeEach(() => {
  untestedNoted.packages.clear();
  untestedNoted.held.length = 0;
  untestedNoted.quiet = undefined;
});

const capture = () => {
  let text = '';
  return { stderr: { write: (s: string) => ((text += s), true) }, lines: () => text.trimEnd().split('\n').filter(Boolean) };
};

it('tested versions say nothing; versions beside them name the tested ones', () => {
  for (const v of ['0.2.45', '0.2.51', '0.3.20', '0.3.31', '1.1.1', '1.4.0']) expect(untestedNote('typeorm', v), v).toBeUndefined();
  for (const v of ['0.2.37', '0.3.7', '1.0.0', '2.0.0'])
    expect(untestedNote('typeorm', v), v).toMatch(
      new RegExp(`^fast-test-db: typeorm ${v.replace(/\./g, '\\.')} is not one of the tested versions \\(0\\.2\\.45\\+`),
    );
  expect(untestedNote('jest', '27.5.1')).toMatch(/jest 27\.5\.1 .*\(29\.7\+ and 30\)/);
  expect(untestedNote('jest', '30.5.2')).toBeUndefined();
  expect(untestedNote('typeorm', 'unknown')).toBeUndefined();
});

it('one line per package per process', () => {
  let text = '';
  const stderr = { write: (s: string) => ((text += s), true) };
  settleUntested(false);
  noteUntested('typeorm', '0.3.7', stderr);
  noteUntested('typeorm', '0.2.37', stderr);
  noteUntested('jest', '27.5.1', stderr);
  expect(text.trimEnd().split('\n')).toEqual([expect.stringMatching(/typeorm 0\.3\.7/), expect.stringMatching(/jest 27\.5\.1/)]);
});

it('Prisma, Drizzle and Vitest name their tested ranges too', () => {
  expect(untestedNote('@prisma/client', '7.4.0')).toMatch(/@prisma\/client 7\.4\.0 .*\(6\.19\+ below 7, 7\.10\+ below 8\)/);
  expect(untestedNote('@prisma/client', '7.10.0')).toBeUndefined();
  expect(untestedNote('drizzle-orm', '0.44.0')).toMatch(/drizzle-orm 0\.44\.0 .*\(0\.40\.x, 0\.45\.4\+ below 0\.46\)/);
  expect(untestedNote('drizzle-orm', '1.0.0')).toMatch(/drizzle-orm 1\.0\.0/);
  expect(untestedNote('vitest', '3.2.4')).toMatch(/vitest 3\.2\.4 .*\(4\.1\.12\+ below 5\)/);
});

/**
 * The spans are what `npm test` installs: every copy installed for a package (its own name and each
 * `npm:<pkg>@` alias in devDependencies) is inside a span, and every span starts at one of them.
 */
it('the tested spans match the versions this repository installs', () => {
  const root = join(import.meta.dirname, '../..');
  const dev = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
  for (const [pkg, { spans }] of Object.entries(TESTED)) {
    const names = Object.keys(dev).filter((name) => name === pkg || dev[name]!.startsWith(`npm:${pkg}@`));
    // An alias's package.json names the package, not the alias: read it where npm put it.
    const versions = names.map(
      (name) => (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version,
    );
    expect(versions.length, pkg).toBeGreaterThan(0);
    for (const v of versions) expect(untestedNote(pkg, v), `${pkg} ${v}`).toBeUndefined();
    for (const [lo] of spans) expect(versions, `${pkg} span from ${lo}`).toContain(lo);
  }
});

it('the installed version is read through the package, also one that exports no package.json', () => {
  const root = join(import.meta.dirname, '../..');
  expect(installedVersion('drizzle-orm', root)).toMatch(/^0\.45\./);
  expect(installedVersion('vitest', root)).toMatch(/^4\./);
  expect(installedVersion('no-such-package-here', root)).toBe('unknown');
});

it('noteInstalled says it for the copy the project loads', () => {
  let text = '';
  const stderr = { write: (s: string) => ((text += s), true) };
  const dir = mkdtempSync(join(tmpdir(), 'ftdb-tested-'));
  try {
    mkdirSync(join(dir, 'node_modules/drizzle-orm'), { recursive: true });
    writeFileSync(
      join(dir, 'node_modules/drizzle-orm/package.json'),
      JSON.stringify({ name: 'drizzle-orm', version: '0.42.1', main: 'index.js' }),
    );
    writeFileSync(join(dir, 'node_modules/drizzle-orm/index.js'), '');
    settleUntested(false);
    noteInstalled('drizzle-orm', dir, stderr);
    noteInstalled('drizzle-orm', dir, stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(text.trimEnd().split('\n')).toEqual([
    expect.stringMatching(/^fast-test-db: drizzle-orm 0\.42\.1 is not one of the tested versions/),
  ]);
});

it("a line raised before the run's quiet is known waits for it: said when the run is not quiet, dropped when it is", () => {
  const said = capture();
  noteUntested('typeorm', '0.3.7', said.stderr);
  expect(said.lines()).toEqual([]);
  settleUntested(false);
  expect(said.lines()).toEqual([expect.stringMatching(/typeorm 0\.3\.7/)]);
  // Later lines follow the quiet of the last entry at once.
  noteUntested('jest', '27.5.1', said.stderr);
  expect(said.lines()).toHaveLength(2);

  const dropped = capture();
  untestedNoted.quiet = undefined;
  noteUntested('vitest', '3.2.4', dropped.stderr);
  settleUntested(true);
  noteUntested('drizzle-orm', '0.42.1', dropped.stderr);
  settleUntested(false);
  expect(dropped.lines()).toEqual([]);
});
