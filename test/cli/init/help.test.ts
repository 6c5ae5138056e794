/** init as the CLI: listed in --help, its own --help, and its exit codes and errors from a shell. */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, test } from 'vitest';
import { isolatedEnv, runCli } from '../cli.js';
import { makeProject } from './projects.js';

const { env, cleanup } = isolatedEnv('cli-init');
afterAll(cleanup);

describe('fast-test-db init', () => {
  test('--help lists it; init --help says what it reads, writes and refuses', async () => {
    const [help, own] = await Promise.all([runCli(['--help'], env), runCli(['init', '--help'], env)]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}init\s+read the project/m);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^Usage: fast-test-db init/);
    for (const flag of ['--dry-run', '--force', '--dir', '--json']) expect(own.stdout).toContain(flag);
    expect(own.stdout).toContain('WOULD_OVERWRITE');
  });

  test('prints what it inferred with file:line, the diff, and exits 0; a second run exits 1 with WOULD_OVERWRITE and its fix', async () => {
    const p = makeProject({ orm: 'typeorm', runner: 'jest', engine: 'postgres' });
    try {
      const dry = await runCli(['init', '--dry-run', '--dir', p.dir], env);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/^ {2}orm\s+typeorm\s+package\.json:\d+$/m);
      expect(dry.stdout).toContain('--- a/jest.config.js\n+++ b/jest.config.js\n@@ ');
      expect(dry.stdout).toContain('dry run: nothing written');
      expect(p.read('jest.config.js')).not.toContain('fast-test-db');
      expect((await runCli(['init', '--dir', p.dir], env)).code).toBe(0);
      const again = await runCli(['init', '--dir', p.dir], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('[WOULD_OVERWRITE] init changes nothing here: jest.config.js already uses fast-test-db');
      expect(again.stderr).toContain('fix: review the diff with --dry-run, then run again with --force');
    } finally {
      p.cleanup();
    }
  });

  test('a folder without package.json, or without a runner it knows: UNSUPPORTED, exit 1', async () => {
    const empty = mkdtempSync('/tmp/ftdb-init-empty-');
    try {
      const r = await runCli(['init', '--dir', empty], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('[UNSUPPORTED] no package.json in');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const p = makeProject(
      { orm: 'drizzle', runner: 'vitest', engine: 'postgres' },
      { 'package.json': '{"name":"x","scripts":{"test":"ava"}}\n' },
    );
    try {
      const r = await runCli(['init', '--dir', p.dir], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('[UNSUPPORTED] found no test runner init knows');
    } finally {
      p.cleanup();
    }
  });
});
