/**
 * Which drivers the setup file wraps: those the project lists (and those its Prisma adapters bring),
 * postgres.js always (its Query file loads nothing else); a driver left alone that a test loads after
 * all is named as not seen.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { instrumentDrivers, instrumentLoaded, loadedAfterAll, projectDrivers } from '../../src/reporters/query-timing.js';

const dir = mkdtempSync(join(tmpdir(), 'ftdb-drivers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('reads the drivers a project lists, and the ones its Prisma adapters bring', () => {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ dependencies: { '@prisma/adapter-mariadb': '7', drizzle: '1' }, devDependencies: { mysql2: '3' } }),
  );
  const got = projectDrivers(dir)!;
  expect(['mariadb', 'mysql2', '@prisma/adapter-mariadb'].every((n) => got.has(n))).toBe(true);
  expect(got.has('pg')).toBe(false);
  expect(projectDrivers(join(dir, 'nowhere'))).toBeUndefined();
});

it('wraps only the listed drivers and postgres.js; names a skipped driver once it is loaded', () => {
  const load = createRequire(import.meta.url);
  const got = instrumentDrivers(load, new Set(['mysql2']));
  expect(got.timed).toEqual(['postgres', 'mysql2']);
  expect(got.skipped.sort()).toEqual(['mariadb', 'mysql', 'pg']);
  // This repository's own tests have loaded pg through Node's require before; mysql (mysqljs) not.
  load('pg');
  expect(loadedAfterAll(got.skipped)).toContain('pg');
  expect(loadedAfterAll(['mysql'])).toEqual([]);
});

it('wraps a driver left alone once something has loaded it, at no loading cost', () => {
  const load = createRequire(import.meta.url);
  load('mysql2');
  expect(instrumentLoaded(['mysql2', 'mysql'])).toEqual(['mysql2']);
});
