/**
 * The run banner and the status line of the runners' global setup: which server a run uses and
 * whether it is tuned, once per run; a spinner while it starts, on a terminal only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runBanner, withStatus } from '../../src/runners/shared/banner.js';
import { startRun } from '../../src/runners/shared/global.js';
import type { ServerInfo } from '../../src/types.js';
import { startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';

function stream(isTTY: boolean) {
  let text = '';
  return { isTTY, columns: 120, write: (s: string) => ((text += s), true), text: () => text } as unknown as NodeJS.WriteStream & {
    text(): string;
  };
}

describe('status line', () => {
  const slow = () => new Promise<number>((r) => setTimeout(() => r(7), 250));

  test('on a terminal: a redrawn line while it works, then the result in its place', async () => {
    const tty = stream(true);
    expect(await withStatus({ quiet: false, label: 'starting', work: slow, done: (n) => `done ${n}`, stderr: tty, env: {} })).toBe(7);
    expect(tty.text()).toContain('\r\x1b[2K');
    expect(tty.text()).toMatch(/starting .*s/);
    expect(tty.text().trimEnd().split('\n').at(-1)).toMatch(/done 7 .*\(0\.\d s\)/);
  });

  test('on a terminal in CI: nothing redrawn, the start and the result on lines of their own', async () => {
    const tty = stream(true);
    await withStatus({ quiet: false, label: 'starting', work: slow, done: (n) => `done ${n}`, stderr: tty, env: { CI: 'true' } });
    expect(tty.text()).not.toContain('\r');
    expect(tty.text()).toMatch(/^starting\.\.\.\n.*done 7/s);
  });

  test('not a terminal: only the result line; quiet: nothing', async () => {
    const log = stream(false);
    await withStatus({ quiet: false, label: 'starting', work: slow, done: (n) => `done ${n}`, stderr: log, env: process.env });
    expect(log.text()).toBe('done 7\n');
    const quiet = stream(true);
    await withStatus({ quiet: true, label: 'starting', work: slow, done: (n) => `done ${n}`, stderr: quiet, env: process.env });
    expect(quiet.text()).toBe('');
  });
});

describe('banner', () => {
  const base: ServerInfo = {
    engine: 'postgres',
    flavor: 'postgres',
    version: '18.4',
    major: 18,
    provider: 'embedded',
    owned: true,
    tuned: true,
    host: '127.0.0.1',
    port: 5999,
    user: 'postgres',
    password: '',
    adminDatabase: 'postgres',
  };

  test('a kept server gets a second line: for how long, and how to stop it', () => {
    const kept = runBanner(base, { source: 'started', template: 'ftdb_tpl_x', built: false, keptMs: 15 * 60_000 }).split('\n');
    expect(kept).toHaveLength(2);
    expect(kept[1]).toMatch(/stays up for the next run until 15 min without clients/);
    expect(kept[1]).toMatch(/npx fast-test-db stop/);
  });

  test('says which server and whether it is tuned, in one line', () => {
    const ours = runBanner(base, { source: 'started', template: 'ftdb_tpl_x', built: true });
    expect(ours).toBe('fast-test-db: PostgreSQL 18.4 (embedded, ours), tuned; template ftdb_tpl_x built');
    // Jest and Vitest say how many workers the run uses, on the same line.
    expect(runBanner(base, { source: 'started', template: 'ftdb_tpl_x', built: true, workers: 'up to 3 workers' })).toBe(
      'fast-test-db: PostgreSQL 18.4 (embedded, ours), tuned; template ftdb_tpl_x built; up to 3 workers',
    );
    const theirs = runBanner(
      {
        ...base,
        flavor: 'mariadb',
        engine: 'mysql',
        version: '10.11.6-MariaDB',
        provider: 'external',
        owned: false,
        tuned: false,
        port: 3306,
      },
      { source: 'env', template: 'ftdb_tpl_y', built: false },
    );
    expect(theirs).toMatch(
      /^fast-test-db: MariaDB 10\.11\.6 \(127\.0\.0\.1:3306 from FAST_TEST_DB_URL, not ours\), NOT tuned: .*unset FAST_TEST_DB_URL/,
    );
    expect(theirs).not.toContain('\n');
  });

  describe('a FAST_TEST_DB_URL already set', () => {
    let plain: PlainPostgres;
    const cwd = mkdtempSync(join(tmpdir(), 'ftdb-banner-'));
    const saved = { ...process.env };
    beforeAll(async () => {
      plain = await startPlainPostgres();
    });
    afterAll(async () => {
      process.env = saved;
      await plain?.stop();
      rmSync(cwd, { recursive: true, force: true });
    });

    test('the global setup prints the untuned server it switched to, once; quiet prints nothing', async () => {
      process.env.FAST_TEST_DB_URL = plain.url;
      const lines: string[] = [];
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (lines.push(String(s)), true));
      try {
        const run = await startRun({ cacheKey: 'banner' }, { cwd });
        await run.teardown();
        const quiet = await startRun({ cacheKey: 'banner', quiet: true }, { cwd });
        await quiet.teardown();
      } finally {
        spy.mockRestore();
      }
      const ours = lines.filter((l) => l.startsWith('fast-test-db:'));
      expect(ours).toHaveLength(1);
      expect(ours[0]).toMatch(
        new RegExp(
          `^fast-test-db: PostgreSQL ${plain.version.replace('.', '\\.')} \\(127\\.0\\.0\\.1:${plain.port} from FAST_TEST_DB_URL, not ours\\), NOT tuned`,
        ),
      );
    });
  });
});
