/** The options module: every option and env var resolved in one place, and the README's table made from it. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, optionTableMarkdown, resolveOptions } from '../../src/options.js';

const ROOT = join(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('options', () => {
  it('an option wins over its env var, the env var over the default', () => {
    const env = {
      FAST_TEST_DB_PREFIX: 'envp',
      FAST_TEST_DB_REUSE: '1',
      FAST_TEST_DB_CLONE_STRATEGY: 'wal_log',
      FAST_TEST_DB_GRACE_MS: '250',
    };
    expect(resolveOptions({ prefix: 'opt' }, env).prefix).toBe('opt');
    expect(resolveOptions({}, env)).toMatchObject({ prefix: 'envp', reuse: true, cloneStrategy: 'wal_log', graceMs: 250 });
    expect(resolveOptions({}, {})).toMatchObject({
      prefix: 'ftdb',
      reuse: false,
      cloneStrategy: 'file_copy',
      graceMs: 5000,
      maxConnections: 300,
      server: 'auto',
      initdbCache: true,
    });
  });

  it('a bad grace is an error only when it is read', () => {
    const resolved = resolveOptions({}, { FAST_TEST_DB_GRACE_MS: 'soon' });
    expect(resolved.prefix).toBe('ftdb');
    expect(() => resolved.graceMs).toThrow(/FAST_TEST_DB_GRACE_MS="soon" is not a number/);
  });

  it("the README's option table is the one the options module describes", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(optionTableMarkdown());
  });

  it("every FAST_TEST_DB_ env var in src/ is in the table, or is not an option (the runners' protocol, a test hook, a warning code)", () => {
    const protocol = new Set([
      'FAST_TEST_DB_RUNNER',
      'FAST_TEST_DB_SERVER',
      'FAST_TEST_DB_NAME__',
      'FAST_TEST_DB_REPORT_DIR',
      'FAST_TEST_DB_KEEPER',
      'FAST_TEST_DB_TEST_PAUSE',
      'FAST_TEST_DB_TEST_PAUSE_FILE',
      'FAST_TEST_DB_UNVERIFIABLE_TEMPLATE',
    ]);
    const seen = new Set(sources(join(ROOT, 'src')).flatMap((f) => readFileSync(f, 'utf8').match(/\bFAST_TEST_DB_[A-Z_]+/g) ?? []));
    const unknown = [...seen].filter((v) => !ENV_VARS.includes(v) && !protocol.has(v));
    expect(unknown).toEqual([]);
  });

  it('no file but src/options.ts reads an option from the environment', () => {
    const readers = sources(join(ROOT, 'src'))
      .filter((f) => relative(ROOT, f) !== 'src/options.ts')
      .flatMap((f) =>
        /process\.env\.(FAST_TEST_DB_\w+|TEST_DATABASE_URL)\b(?!\s*=[^=])|env\.TEST_DATABASE_URL/.test(readFileSync(f, 'utf8'))
          ? [relative(ROOT, f)]
          : [],
      );
    expect(readers).toEqual([]);
  });
});
