/**
 * Every command's output and exit codes, from source, against real servers: the tuned one `start`
 * runs, and a plain untuned PostgreSQL the test starts itself.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONFIG_PATTERN } from '../../src/options/config.js';
import { hasPostgresBinaries, startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';
import { exited, isolatedEnv, jsonLines, REPO, runCli, runFixture, spawnCli, waitForOutput } from './cli.js';

const iso = isolatedEnv('cli-cmd');
const env = iso.env;
const PG15 = '/usr/lib/postgresql/15/bin';
/** Debian's MariaDB server binary; the library starts its own instance from it. */
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'].some((b) => existsSync(b));

afterAll(() => iso.cleanup());

describe('usage', () => {
  test('--help lists every command and exits 0; no command exits 2', async () => {
    const help = await runCli(['--help'], env);
    expect(help.code).toBe(0);
    for (const c of ['start', 'stop', 'url', 'doctor', 'monitor', 'clean']) expect(help.stdout).toMatch(new RegExp(`^  ${c}\\s`, 'm'));
    const none = await runCli([], env);
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('Usage: fast-test-db <command>');
  });

  test('the config file names are one list: what the loader takes, what --help and the README say', async () => {
    const help = await runCli(['--help'], env);
    expect(CONFIG_PATTERN).toBe('fast-test-db.config.{ts,mts,cts,mjs,js,cjs,json}');
    expect(help.stdout).toContain(`Options also come from ${CONFIG_PATTERN}`);
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const named = readme.match(/fast-test-db\.config\.\{[^}]*\}/g) ?? [];
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([CONFIG_PATTERN]));
  });

  test('each command has its own --help', async () => {
    const results = await Promise.all(['start', 'url', 'doctor', 'monitor', 'clean', 'stop'].map((c) => runCli([c, '--help'], env)));
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: fast-test-db \w+/);
      expect(r.stdout).toContain('--json');
    }
    expect(results[0]!.stdout).toContain('--port');
    expect(results[4]!.stdout).toContain('--older-than');
    // stop says what it does with clients still connected, and how to override it.
    expect(results[5]!.stdout).toContain('stops nothing, exiting 1 with SERVER_IN_USE');
    expect(results[5]!.stdout).toContain('--force');
  });

  test('wrong command lines exit 2 and say what to do', async () => {
    const [unknown, badOpt, noAge, badAge, badEngine, jsonErr] = await Promise.all([
      runCli(['frobnicate'], env),
      runCli(['doctor', '--bogus'], env),
      runCli(['clean'], env),
      runCli(['clean', '--older-than', 'banana'], env),
      runCli(['url', '--engine', 'oracle'], env),
      runCli(['clean', '--json'], env),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(unknown.stderr).toContain('fix:');
    expect(badOpt.code).toBe(2);
    expect(badOpt.stderr).toContain("Unknown option '--bogus'");
    expect(noAge.code).toBe(2);
    expect(noAge.stderr).toContain('clean needs --older-than');
    expect(badAge.code).toBe(2);
    expect(badAge.stderr).toContain('"banana" is not a duration');
    expect(badEngine.code).toBe(2);
    expect(badEngine.stderr).toContain('unknown engine "oracle"');
    // --json puts the error on stdout as JSON, with its code and fix.
    expect(jsonErr.code).toBe(2);
    expect(jsonLines(jsonErr.stdout)[0]).toMatchObject({ error: { code: 'BAD_OPTION', fix: expect.stringContaining('--older-than') } });
  });
});

describe('doctor', () => {
  let plain: PlainPostgres;
  beforeAll(async () => {
    // The system's PostgreSQL 15 when there is one (an older major than the embedded 18), else the embedded binaries.
    plain = await startPlainPostgres({ binDir: hasPostgresBinaries(PG15) ? PG15 : undefined });
  });
  afterAll(() => plain?.stop());

  test('an untuned server: exit 1, what is wrong, the exact flags', async () => {
    const r = await runCli(['doctor', plain.url], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`connected to PostgreSQL ${plain.major}`);
    expect(r.stdout).toContain('✗ not tuned: fsync=on (want off), synchronous_commit=on (want off), full_page_writes=on (want off)');
    expect(r.stdout).toContain('postgres -c fsync=off -c synchronous_commit=off -c full_page_writes=off');
    expect(r.stdout).toContain(`postgres:${plain.major} -c fsync=off`);
    expect(r.stdout).toContain('127.0.0.1:' + plain.port + ' is on this machine');
    expect(r.stdout).toMatch(/1 problem\(s\)/);
    const json = JSON.parse((await runCli(['doctor', plain.url, '--json'], env)).stdout);
    expect(json.ok).toBe(false);
    expect(json.server).toMatchObject({
      engine: 'postgres',
      tuned: false,
      local: true,
      untuned: { fsync: { expected: 'off', actual: 'on' } },
    });
    expect(json.checks.find((c: { id: string }) => c.id === 'tuned')).toMatchObject({ status: 'fail' });
  });

  test('the same server started with the flags doctor gave: exit 0', async () => {
    await using tuned = await startPlainPostgres({
      binDir: plain.binDir,
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    const r = await runCli(['doctor', tuned.url], env);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('✓ durability is off (tuned for tests)');
    expect(r.stdout).toContain('Nothing wrong.');
  });

  test('an unreachable server: exit 1 and what to check; FAST_TEST_DB_URL is the default URL', async () => {
    const r = await runCli(['doctor'], { ...env, FAST_TEST_DB_URL: 'postgres://postgres@127.0.0.1:1/postgres' });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ cannot connect to 127.0.0.1:1 as postgres');
    expect(r.stdout).toContain('check that the server is running');
  });

  test('the machine: binaries, tmpfs, Docker; no colour into a pipe, colour with FORCE_COLOR', async () => {
    const [plainOut, coloured] = await Promise.all([
      runCli(['doctor'], env),
      runCli(['doctor'], { ...env, NO_COLOR: undefined, FORCE_COLOR: '1' }),
    ]);
    expect(plainOut.code).toBe(0);
    expect(plainOut.stdout).toMatch(/✓ PostgreSQL \d+\.\d+ binaries/);
    expect(plainOut.stdout).toContain(`data of our servers goes to ${iso.root} (tmpfs)`);
    expect(plainOut.stdout).toMatch(/Docker/);
    expect(plainOut.stdout + plainOut.stderr).not.toContain('\x1b[');
    expect(coloured.stdout).toContain('\x1b[32m✓\x1b[39m');
  });
});

describe('start, url, monitor on the tuned server', () => {
  test('start prints the URL; url, the library and doctor find the same server; monitor sees a write burst; Ctrl-C stops it and removes its data', async () => {
    const start = spawnCli(['start', '--json'], env);
    try {
      await waitForOutput(start, (o) => o.includes('"event":"ready"'));
      const ready = jsonLines<{
        event: string;
        url: string;
        adminUrl: string;
        joined: boolean;
        tuned: boolean;
        server: { port: number; stateDir: string; password: string };
        settings: Record<string, string>;
      }>(start.out())[0]!;
      expect(ready).toMatchObject({
        event: 'ready',
        joined: false,
        tuned: true,
        settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
      });
      // The app's URL names an empty database of its own, never the server's own `postgres`.
      expect(ready.url).toBe(`postgres://postgres:${ready.server.password}@127.0.0.1:${ready.server.port}/test`);
      expect(ready.adminUrl).toBe(`postgres://postgres:${ready.server.password}@127.0.0.1:${ready.server.port}/postgres`);
      expect(start.err()).toMatch(/✓ started PostgreSQL \d+/);
      const dataDir = join(ready.server.stateDir, 'data');
      expect(existsSync(dataDir)).toBe(true);

      // `url` prints just the URL of that same server (progress goes to stderr).
      const url = await runCli(['url'], env);
      expect(url.code).toBe(0);
      expect(url.stdout).toBe(ready.adminUrl + '\n');
      // It only joins that server, and says so.
      expect(url.stderr).toContain('joining PostgreSQL');
      expect(url.stderr).not.toContain('starting');

      // The library, in a test process of this project, joins it rather than starting its own.
      const worker = await runFixture('worker.ts', { ...env, FAST_TEST_DB_WORKER: '1', FIXTURE_DESTROY: '1' });
      expect(JSON.parse(worker)).toMatchObject({ port: ready.server.port, owned: true, built: true });
      const listed = JSON.parse((await runCli(['doctor', '--json'], env)).stdout).checks.filter(
        (c: { id: string }) => c.id === 'owned-server',
      );
      expect(listed).toHaveLength(1);
      expect(listed[0].title).toContain(`on port ${ready.server.port} server: running (keeper `);

      const doctor = await runCli(['doctor', ready.url], env);
      expect(doctor.code).toBe(0);
      expect(doctor.stdout).toContain('✓ durability is off');
      expect(doctor.stdout).toMatch(/its data is in memory \(tmpfs/);

      await expectMonitorSeesBurst(ready.url);

      start.kill('SIGINT');
      expect(await exited(start)).toBe(0);
      expect(jsonLines(start.out()).at(-1)).toEqual({ event: 'stopped' });
      expect(start.err()).toContain('✓ stopped; data removed');
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      if (start.exitCode === null) start.kill('SIGKILL');
    }
  });

  test('start --data-cache: the second start begins with the template built, and without test databases', async () => {
    const cacheDir = join(iso.root, 'cache');
    const startOnce = async () => {
      const start = spawnCli(['start', '--data-cache', '--cache-dir', cacheDir, '--json'], env);
      try {
        await waitForOutput(start, (o) => o.includes('"event":"ready"'));
        const worker = JSON.parse(
          await runFixture('worker.ts', { ...env, FAST_TEST_DB_WORKER: '7', FIXTURE_CACHE_KEY: 'data-cache-v1' }),
        ) as { name: string; built: boolean };
        start.kill('SIGINT');
        expect(await exited(start)).toBe(0);
        return { worker, stderr: start.err() };
      } finally {
        if (start.exitCode === null) start.kill('SIGKILL');
      }
    };
    const first = await startOnce();
    expect(first.worker.built).toBe(true);
    // The worker's clone and the empty database start handed out, and the standby clone the
    // worker's destroy() may have left for the next process.
    expect(first.stderr).toMatch(/dropped [23] test database\(s\) so that the saved data holds templates only/);
    expect(first.stderr).toContain('✓ stopped; data saved for the next start');
    // The full data directory, alone: initdb's output is kept beside the servers, not in the cache.
    const saved = readdirSync(cacheDir).filter((d) => d.startsWith('postgres-'));
    expect(saved).toHaveLength(1);
    expect(existsSync(join(cacheDir, saved[0]!, 'PG_VERSION'))).toBe(true);
    const second = await startOnce();
    expect(second.worker).toMatchObject({
      name: first.worker.name,
      template: (first.worker as { template?: string }).template,
      built: false,
    });
  });

  test('start builds the template fast-test-db.config.* describes, with a status line', async () => {
    const cwd = join(REPO, 'test/fixtures/cli/project');
    const startIn = async () => {
      const start = spawnCli(['start', '--json'], env, cwd);
      try {
        await waitForOutput(start, (o) => o.includes('"event":"ready"'));
        const ready = jsonLines<{ url: string; template?: { name: string; built: boolean } }>(start.out())[0]!;
        const client = new pg.Client(ready.url);
        await client.connect();
        const { rows } = await client.query<{ datistemplate: boolean }>('SELECT datistemplate FROM pg_database WHERE datname = $1', [
          ready.template?.name,
        ]);
        await client.end();
        start.kill('SIGINT');
        expect(await exited(start)).toBe(0);
        return { ready, rows, stderr: start.err() };
      } finally {
        if (start.exitCode === null) start.kill('SIGKILL');
      }
    };
    const { ready, rows, stderr } = await startIn();
    expect(ready.template).toMatchObject({ name: expect.stringMatching(/^ftdb_tpl_/), built: true });
    expect(rows).toEqual([{ datistemplate: true }]);
    expect(stderr).toContain('building the template...');
    expect(stderr).toContain(`✓ built template ${ready.template!.name}`);
  });

  test.skipIf(!MARIADBD)(
    'start --engine mysql with a PostgreSQL migrate in the config says that the engine and the migrate disagree',
    async () => {
      const r = await runCli(['start', '--engine', 'mysql'], env, { cwd: join(REPO, 'test/fixtures/cli/project') });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('[MIGRATION_FAILED] the engine and the migrate disagree: the server is MySQL/MariaDB');
      expect(r.stderr).toContain('--engine postgres');
    },
  );

  test('start with an adapter written for another engine refuses before it starts any server', async () => {
    const r = await runCli(['start', '--engine', 'postgres'], env, { cwd: join(REPO, 'test/fixtures/cli/mysql-adapter') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the engine is 'postgres', but the config's adapter builds a schema for 'mysql'");
    expect(r.stderr).not.toContain('starting');
  });

  test.skipIf(!hasPostgresBinaries(PG15))('monitor reads the pre-17 statistics views (PostgreSQL 15)', async () => {
    await using old = await startPlainPostgres({ binDir: PG15 });
    await expectMonitorSeesBurst(old.url);
  });

  test('monitor without a URL and no server of ours running: exit 1 with a fix', async () => {
    const r = await runCli(['monitor', '--duration', '1s'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no server to watch');
    expect(r.stderr).toContain('fast-test-db start');
  });
});

interface MonitorLine {
  tps: number;
  walBytesPerSec: number;
  checkpointsRequested: number;
  warnings: string[];
}

/** Runs `monitor --json` for 4 s while another connection writes ~50 MB of WAL in the middle. */
async function expectMonitorSeesBurst(url: string): Promise<void> {
  const monitor = spawnCli(['monitor', url, '--duration', '4s', '--json'], env);
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('DROP TABLE IF EXISTS ftdb_burst; CREATE TABLE ftdb_burst (id int, pad text)');
    await waitForOutput(monitor, (o) => o.includes('"tps"'), 20_000);
    for (let i = 0; i < 20; i++) await client.query(`INSERT INTO ftdb_burst SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g`);
    expect(await exited(monitor)).toBe(0);
  } finally {
    await client.query('DROP TABLE IF EXISTS ftdb_burst').catch(() => undefined);
    await client.end();
    if (monitor.exitCode === null) monitor.kill('SIGKILL');
  }
  const lines = jsonLines<MonitorLine>(monitor.out());
  expect(lines.length).toBeGreaterThanOrEqual(3);
  const peak = Math.max(...lines.map((l) => l.walBytesPerSec));
  expect(peak, JSON.stringify(lines)).toBeGreaterThan(5 * 1024 ** 2);
  expect(Math.max(...lines.map((l) => l.tps))).toBeGreaterThan(0);
  // Quiet seconds exist too: the burst shows as a burst.
  expect(Math.min(...lines.map((l) => l.walBytesPerSec))).toBeLessThan(peak / 5);
  expect(monitor.err()).toMatch(/line\(s\), \d+ with a warning, peak WAL/);
}
