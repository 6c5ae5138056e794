/** The config file loader: which file wins, how each kind loads, and explicit options on top. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { findConfigFile, loadConfig, loadConfigFile, mergeConfig, resolveAdapter } from '../../src/options/config.js';
import { isFastTestDbError } from '../../src/errors.js';
import type { MigrateFn } from '../../src/types.js';

const dirs: string[] = [];
const project = (files: Record<string, string>) => {
  const dir = mkdtempSync('/tmp/ftdb-config-');
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loadConfig', () => {
  test('no file: empty options', async () => {
    expect(await loadConfig(project({}))).toEqual({});
  });

  test('json', async () => {
    const dir = project({ 'fast-test-db.config.json': '{ "engine": "mysql", "isolation": "file", "envVar": "DB" }' });
    expect(await loadConfig(dir)).toEqual({ engine: 'mysql', isolation: 'file', envVar: 'DB' });
  });

  test('mjs with a migrate function', async () => {
    const dir = project({ 'fast-test-db.config.mjs': 'export default { cacheKey: "k", async migrate() { return 42; } };' });
    const c = await loadConfig(dir);
    expect(c.cacheKey).toBe('k');
    expect(await (c.migrate as MigrateFn)('', {} as never)).toBe(42);
  });

  test('ts wins over json, and may use TypeScript syntax', async () => {
    const dir = project({
      'fast-test-db.config.ts': 'const isolation: "test" = "test";\nexport default { isolation, reuse: true as boolean };',
      'fast-test-db.config.json': '{ "isolation": "file" }',
    });
    expect(findConfigFile(dir)).toBe(join(dir, 'fast-test-db.config.ts'));
    expect(await loadConfig(dir)).toEqual({ isolation: 'test', reuse: true });
  });

  test('cjs module.exports', async () => {
    const dir = project({ 'fast-test-db.config.cjs': 'module.exports = { prefix: "app" };' });
    expect(await loadConfig(dir)).toEqual({ prefix: 'app' });
  });

  test('a file that exports no object, or does not parse, is a BAD_OPTION naming the file', async () => {
    for (const files of [{ 'fast-test-db.config.mjs': 'export default 3;' }, { 'fast-test-db.config.json': '{ nope' }] as Array<
      Record<string, string>
    >) {
      const dir = project(files);
      const e = await loadConfigFile(dir).catch((x: unknown) => x);
      expect(isFastTestDbError(e, 'BAD_OPTION')).toBe(true);
      expect((e as Error).message).toContain(dir);
    }
  });
});

describe('mergeConfig / resolveAdapter', () => {
  test('explicit options override the file; undefined does not erase', () => {
    expect(mergeConfig({ engine: 'mysql', isolation: 'file', prefix: 'a' }, { isolation: 'test', prefix: undefined })).toEqual({
      engine: 'mysql',
      isolation: 'test',
      prefix: 'a',
    });
  });

  test('an adapter fills in migrate and cacheKey, lazily, under explicit values', async () => {
    const migrate = async () => {};
    let loaded = 0;
    const adapter = () => (loaded++, { migrate, cacheKey: 'from-adapter', migrationFiles: 'm/*.sql' });
    expect(loaded).toBe(0);
    const r = await resolveAdapter({ adapter, cacheKey: 'explicit' });
    expect(loaded).toBe(1);
    expect(r).toEqual({ migrate, cacheKey: 'explicit', migrationFiles: 'm/*.sql' });
    expect('adapter' in r).toBe(false);
  });

  test("an adapter's engine picks the engine; a different engine given is a BAD_OPTION naming both", async () => {
    const adapter = { engine: 'mysql' as const, cacheKey: 'k' };
    expect((await resolveAdapter({ adapter })).engine).toBe('mysql');
    expect((await resolveAdapter({ adapter, engine: 'mysql' })).engine).toBe('mysql');
    await expect(resolveAdapter({ adapter, engine: 'postgres' })).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringContaining("the engine is 'postgres', but the config's adapter builds a schema for 'mysql'"),
    });
  });
});
