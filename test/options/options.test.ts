/** The options module: every option and env var resolved in one place, and the docs' table made from it. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/options/config.js';
import type { FastTestDbError } from '../../src/errors.js';
import { ENV_VARS, optionTableMarkdown, resolveOptions } from '../../src/options/resolve.js';
import { startServer } from '../../src/core/database.js';
import { isolatedEnv, runCli } from '../cli/cli.js';
import type { TestDatabaseOptions } from '../../src/types.js';

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
    expect(resolveOptions({}, { CI: 'true' }).reuse).toBe(false);
    expect(resolveOptions({}, { GITHUB_ACTIONS: 'true' }).reuse).toBe(false);
    expect(resolveOptions({}, { CI: 'true', FAST_TEST_DB_REUSE: '1' }).reuse).toBe(true);
    expect(resolveOptions({ reuse: true }, { CI: '1' }).reuse).toBe(true);
    expect(resolveOptions({}, { FAST_TEST_DB_REUSE: '0' }).reuse).toBe(false);
    expect(resolveOptions({}, { CI: 'false' }).reuse).toBe(true);
    expect(resolveOptions({}, {})).toMatchObject({
      prefix: 'ftdb',
      reuse: true,
      idleTimeoutMs: 15 * 60_000,
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

  it("the docs' option table is the one the options module describes", () => {
    const readme = readFileSync(join(ROOT, 'docs/core.md'), 'utf8');
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
      'FAST_TEST_DB_LEFT_OPEN',
      'FAST_TEST_DB_RESET_TRIGGERS',
      'FAST_TEST_DB_RESET_LARGE_OBJECTS',
      // What a module migrate or seed's child process reads its job from (src/core/migrate-module.ts).
      'FAST_TEST_DB_MIGRATE_MODULE',
      'FAST_TEST_DB_MIGRATE_EXPORT',
      'FAST_TEST_DB_MIGRATE_CTX',
    ]);
    const seen = new Set(sources(join(ROOT, 'src')).flatMap((f) => readFileSync(f, 'utf8').match(/\bFAST_TEST_DB_[A-Z_]+/g) ?? []));
    const unknown = [...seen].filter((v) => !ENV_VARS.includes(v) && !protocol.has(v));
    expect(unknown).toEqual([]);
  });

  it('no file but src/options/resolve.ts reads an option from the environment', () => {
    const readers = sources(join(ROOT, 'src'))
      .filter((f) => relative(ROOT, f) !== 'src/options/resolve.ts')
      .flatMap((f) =>
        /process\.env\.(FAST_TEST_DB_\w+|TEST_DATABASE_URL)\b(?!\s*=[^=])|env\.TEST_DATABASE_URL/.test(readFileSync(f, 'utf8'))
          ? [relative(ROOT, f)]
          : [],
      );
    expect(readers).toEqual([]);
  });
});

/** The error an entry throws for `options`, before any server starts. */
async function refusal(options: object, env: Record<string, string> = {}): Promise<FastTestDbError> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    await startServer(options as TestDatabaseOptions);
  } catch (e) {
    return e as FastTestDbError;
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
    Object.assign(process.env, saved);
  }
  throw new Error('accepted');
}

describe('every option and env var is checked at the entry', () => {
  it.each([
    [{ keepTemplates: -1 }, /keepTemplates is -1, not a whole number from 1/, 'give keepTemplates a whole number from 1 to 1000'],
    [{ cacheKey: { a: 1 } }, /cacheKey is \{"a":1\}, not a string/, 'give cacheKey a string'],
    [
      { migrationFiles: 42 },
      /migrationFiles is 42, not a string or a non-empty array/,
      'give migrationFiles a string or a non-empty array of strings',
    ],
    [{ isolation: 'bogus' }, /isolation is "bogus", not one of 'worker', 'file', 'test'/, "give isolation one of 'worker', 'file', 'test'"],
    [{ isolation: 'fille' }, /did you mean 'file'\?/, "isolation: 'file'"],
    [{ migrat: async () => {} }, /unknown option "migrat" \(did you mean "migrate"\?\)/, 'rename "migrat" to "migrate"'],
    [{ isolaton: 'test' }, /unknown option "isolaton" \(did you mean "isolation"\?\)/, 'rename "isolaton" to "isolation"'],
    [{ migrationFile: 'db/*.sql' }, /did you mean "migrationFiles"/, 'rename "migrationFile" to "migrationFiles"'],
    [
      { maxConnections: 'abc' },
      /maxConnections is "abc", not a whole number from 2 to 10000 \(a number, not a string\)/,
      'give maxConnections a whole number from 2 to 10000 (a number, not a string)',
    ],
    [{ maxConnections: -5 }, /maxConnections is -5, not a whole number from 2/, 'give maxConnections a whole number from 2 to 10000'],
    [
      { graceMs: '5000' },
      /graceMs is "5000", not a whole number of milliseconds from 0 up \(a number, not a string\)/,
      'graceMs: 5000 (a number, not a string)',
    ],
  ])('%j is BAD_OPTION', async (options, message, fix) => {
    const e = await refusal(options);
    expect(e).toMatchObject({ code: 'BAD_OPTION', fix });
    expect(e.message).toMatch(message);
  });

  it('an unknown key with nothing near it lists the accepted ones', async () => {
    const e = await refusal({ zzzzzzzzzz: 1 });
    expect(e.code).toBe('BAD_OPTION');
    expect(e.fix).toMatch(/^use one of the options: engine, server, url, .*isolation, envVar, env, login, quiet, keepSerial$/);
  });

  it('env maps env names to parts of the connection, and nothing else', async () => {
    const bad = await refusal({ env: { DB_HOST: 'hostname' } });
    expect(bad.code).toBe('BAD_OPTION');
    expect(bad.message + bad.fix).toMatch(/'url', 'host', 'port', 'user', 'password', 'database'/);
    expect((await refusal({ env: { 'DB-HOST': 'host' } })).code).toBe('BAD_OPTION');
  });

  it.each([
    ['FAST_TEST_DB_REUSE', 'yes', 'reuse', true],
    ['FAST_TEST_DB_REUSE', 'NO', 'reuse', false],
    ['FAST_TEST_DB_QUIET', 'true', 'quiet', true],
    ['FAST_TEST_DB_QUIET', 'False', 'quiet', false],
    ['FAST_TEST_DB_ALLOW_REMOTE', '1', 'allowRemote', true],
    ['FAST_TEST_DB_CPU_PAIRING', 'no', 'cpuPairing', false],
  ] as const)('%s=%s reads as on or off', (name, value, key, on) => {
    expect(resolveOptions({}, { [name]: value })[key]).toBe(on);
  });

  it.each([
    ['FAST_TEST_DB_DATA_CACHE', 'maybe', 'set FAST_TEST_DB_DATA_CACHE to 1, 0, true, false, yes or no'],
    ['FAST_TEST_DB_REUSE', 'ja', 'set FAST_TEST_DB_REUSE to 1, 0, true, false, yes or no'],
    ['FAST_TEST_DB_QUIET', 'on', 'set FAST_TEST_DB_QUIET to 1, 0, true, false, yes or no'],
    ['FAST_TEST_DB_CLONE_STRATEGY', 'bogus', "give FAST_TEST_DB_CLONE_STRATEGY one of 'file_copy', 'wal_log'"],
    ['FAST_TEST_DB_CLONE_STRATEGY', 'wal-log', "FAST_TEST_DB_CLONE_STRATEGY='wal_log'"],
    ['FAST_TEST_DB_ISOLATION', 'bogus', "give FAST_TEST_DB_ISOLATION one of 'worker', 'file', 'test'"],
  ])('%s=%s is BAD_OPTION', async (name, value, fix) => {
    const e = await refusal({}, { [name]: value });
    expect(e).toMatchObject({ code: 'BAD_OPTION', fix });
    expect(e.message).toContain(`${name}="${value}"`);
  });

  it.each([
    ['FAST_TEST_DB_CACHE_DIR', '/proc/fast-test-db-cache'],
    ['FAST_TEST_DB_DATA_ROOT', '/proc/self/fast-test-db'],
    ['FAST_TEST_DB_DATA_ROOT', '/sys/fast-test-db'],
  ])('%s=%s is refused before anything spins on it', async (name, dir) => {
    const e = await refusal({}, { [name]: dir });
    expect(e).toMatchObject({ code: 'BAD_OPTION', fix: `point ${name} at a folder on a disk or a tmpfs, e.g. /dev/shm or /tmp` });
    expect(e.message).toMatch(/which is on (proc|sysfs)/);
  });

  it('a path that is a file, and one this user cannot write, are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-opt-'));
    try {
      writeFileSync(join(dir, 'file'), '');
      const e = await refusal({ cacheDir: join(dir, 'file', 'cache') });
      expect(e).toMatchObject({ code: 'BAD_OPTION', fix: 'point cacheDir at a folder' });
      chmodSync(dir, 0o500);
      if (process.getuid?.() !== 0) {
        const ro = await refusal({ dataRoot: join(dir, 'data') });
        expect(ro.message).toMatch(/is not writable by this user/);
      }
    } finally {
      chmodSync(dir, 0o700);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [{ engine: 'mysql', url: 'postgres://postgres@127.0.0.1:1/postgres' }, 'give a mysql:// URL'],
    [{ engine: 'postgres', url: 'mysql://root@127.0.0.1:1/mysql' }, 'give a postgres:// URL'],
  ])('%j is refused at once, without connecting', async (options, fix) => {
    const e = await refusal(options);
    expect(e).toMatchObject({ code: 'BAD_OPTION' });
    expect(e.fix).toContain(fix);
  });

  it('FAST_TEST_DB_ENGINE=mysql with a postgres:// FAST_TEST_DB_URL is refused at once', async () => {
    const e = await refusal({}, { FAST_TEST_DB_ENGINE: 'mysql', FAST_TEST_DB_URL: 'postgres://postgres@127.0.0.1:1/postgres' });
    expect(e.message).toMatch(/the engine is 'mysql' \(FAST_TEST_DB_ENGINE\), but the URL in FAST_TEST_DB_URL is a postgres URL/);
  });

  it('a config file with a typo is refused, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ftdb-opt-'));
    try {
      writeFileSync(join(dir, 'fast-test-db.config.json'), JSON.stringify({ migrationFile: 'db/*.sql' }));
      const e = await loadConfigFile(dir).catch((x: FastTestDbError) => x);
      expect(e).toMatchObject({ code: 'BAD_OPTION', fix: 'rename "migrationFile" to "migrationFiles"' });
      expect((e as Error).message).toContain(join(dir, 'fast-test-db.config.json'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("engine 'mysql' without mysql2 installed is PEER_MISSING before any server starts", () => {
    // A resolve hook that makes mysql2 absent, as in a project that did not install it.
    const hook = `data:text/javascript,${encodeURIComponent(
      "export async function resolve(s, c, next) { if (s === 'mysql2' || s.startsWith('mysql2/')) throw Object.assign(new Error('Cannot find package mysql2'), { code: 'ERR_MODULE_NOT_FOUND' }); return next(s, c); }",
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`)}`;
    const script = `import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/index.ts')).href)}).then((m) => m.startServer({ engine: 'mysql' })).then(() => console.log('started'), (e) => console.log(JSON.stringify({ code: e.code, fix: e.fix })))`;
    const root = mkdtempSync(join(tmpdir(), 'ftdb-peer-'));
    try {
      // Before, this waited over 100 s for a MariaDB that no driver could reach, and left it running.
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--import', register, '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, FAST_TEST_DB_DATA_ROOT: root },
        timeout: 60_000,
      });
      expect(JSON.parse(out.trim())).toEqual({ code: 'PEER_MISSING', fix: 'npm install --save-dev mysql2' });
      // Nothing started: the data root the child was given holds no server folder.
      expect(readdirSync(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the CLI checks what it is given the same way', () => {
  it('fast-test-db start with FAST_TEST_DB_DATA_ROOT under /proc is refused before any server starts', async () => {
    const { env, cleanup } = isolatedEnv('opt-cli');
    try {
      const r = await runCli(['start'], { ...env, FAST_TEST_DB_DATA_ROOT: '/proc/ftdb-data' }, { timeoutMs: 60_000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('FAST_TEST_DB_DATA_ROOT is "/proc/ftdb-data", which is on proc');
      expect(r.stderr).toContain('fix: point FAST_TEST_DB_DATA_ROOT at a folder on a disk or a tmpfs');
    } finally {
      await cleanup();
    }
  });
});
