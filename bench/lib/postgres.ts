/**
 * PostgreSQL servers the bench starts for the write-up's steps: default settings with data on disk
 * (the "before"), default settings on tmpfs, and tmpfs with durability off. They run under the
 * library's keeper (so a killed bench leaves no server behind) but from the bench's own plan:
 * none of the library's tuning applies to them.
 */
import { chownSync, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { findPostgresBinaries } from '../../src/server/embedded-postgres.js';
import type { LaunchPlan, PlanContext } from '../../src/server/launch.js';
import { acquireOwnedServer, stopOwnedServer } from '../../src/server/registry.js';
import { unprivilegedUser } from '../../src/server/user.js';
import type { ServerInfo } from '../../src/types.js';
import { benchDirs } from './dirs.js';

export type PgVariant = 'disk' | 'tmpfs' | 'tmpfs-nodurable';

/** The write-up's non-durable trio, exactly; nothing else changes from the defaults. */
export const NON_DURABLE = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export interface BenchPostgres {
  info: ServerInfo;
  dataDir: string;
  /** Settings read back from the server. */
  settings: Record<string, string>;
  stop(): Promise<void>;
}

function plan(variant: PgVariant, dataDir: string) {
  return async (ctx: PlanContext): Promise<LaunchPlan> => {
    const bins = findPostgresBinaries({});
    const socketDir = join(ctx.dir, 'socket');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    mkdirSync(socketDir, { recursive: true, mode: 0o755 });
    const user = unprivilegedUser();
    if (user) for (const d of [dataDir, socketDir]) chownSync(d, user.uid, user.gid);
    const env: Record<string, string> = { LC_ALL: 'C', LANG: 'C' };
    if (bins.libraryPath) env.LD_LIBRARY_PATH = [bins.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
    const as = { env, cwd: ctx.dir, uid: user?.uid, gid: user?.gid };
    const settings = variant === 'tmpfs-nodurable' ? NON_DURABLE : {};
    const info: ServerInfo = {
      engine: 'postgres',
      flavor: 'postgres',
      version: bins.version,
      major: bins.major,
      provider: 'embedded',
      owned: true,
      tuned: false,
      host: '127.0.0.1',
      port: ctx.port,
      socket: socketDir,
      user: 'postgres',
      password: '',
      adminDatabase: 'postgres',
    };
    return {
      // Plain initdb (it syncs, as a packaged install does); only auth and locale are pinned.
      init: [{ command: join(bins.binDir, 'initdb'), args: ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'], ...as }],
      server: {
        command: join(bins.binDir, 'postgres'),
        args: ['-D', dataDir, '-p', String(ctx.port), '-h', '127.0.0.1', '-k', socketDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
        ...as,
      },
      stopSignal: 'SIGINT',
      cleanup: [dataDir, socketDir],
      ready: async (watch) => {
        const deadline = Date.now() + 60_000;
        let last: unknown;
        while (Date.now() < deadline) {
          if (!watch.keeperAlive()) throw new Error(`bench PostgreSQL (${variant}) did not start:\n${watch.logTail()}`);
          const c = new pg.Client({ host: info.host, port: info.port, user: info.user, database: 'postgres' });
          c.on('error', () => undefined);
          try {
            await c.connect();
            const v = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
            await c.end();
            return { ...info, version: v.rows[0]!.v.split(' ')[0]!, tuned: variant === 'tmpfs-nodurable' };
          } catch (e) {
            last = e;
            await c.end().catch(() => undefined);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`bench PostgreSQL (${variant}) did not answer within 60 s: ${String(last)}`);
      },
    };
  };
}

let serial = 0;

export async function startBenchPostgres(variant: PgVariant): Promise<BenchPostgres> {
  const dirs = benchDirs();
  const n = ++serial;
  const dataDir = join(variant === 'disk' ? dirs.disk : dirs.shm, `pg-${variant}-${n}`);
  // A data root of our own keeps the keeper's state apart from any server the library shares per project.
  const info = await acquireOwnedServer({
    engine: 'postgres',
    identity: ['bench', variant, n, dataDir],
    options: { dataRoot: join(dirs.shm, 'registry') },
    plan: plan(variant, dataDir),
  });
  const c = new pg.Client({ host: info.host, port: info.port, user: info.user, database: 'postgres' });
  await c.connect();
  const rows = await c.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name = ANY($1)`,
    [['fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_wal_size', 'wal_level', 'data_directory', 'server_version']],
  );
  await c.end();
  return {
    info,
    dataDir,
    settings: Object.fromEntries(rows.rows.map((r) => [r.name, r.setting])),
    stop: async () => void (info.stateDir && (await stopOwnedServer(info.stateDir))),
  };
}

export function pgConnection(info: ServerInfo, database = 'postgres') {
  return { host: info.host, port: info.port, user: info.user, password: info.password, database };
}
