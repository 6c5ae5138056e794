/**
 * PostgreSQL servers the bench starts for the write-up's steps: default settings with data on disk
 * (the "before"), default settings on tmpfs, and tmpfs with durability off. They run under the
 * library's keeper (so a killed bench leaves no server behind) but from the bench's own plan:
 * none of the library's tuning applies to them.
 */
import { chownSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { planEmbeddedPostgres } from '../../src/engines/postgres/embedded.js';
import { engineFor } from '../../src/engines/index.js';
import type { LaunchPlan, PlanContext } from '../../src/server/os/launch.js';
import { contextOf } from '../../src/options/context.js';
import { embeddedSettings } from '../../src/server/providers/embedded.js';
import { acquireOwnedServer, stopOwnedServer } from '../../src/server/registry.js';
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

/**
 * The library's own plan (binaries, user, socket, readiness) turned into an ordinary install's:
 * the write-up's settings instead of ours, a plain initdb, data in `dataDir`, no data caches.
 */
function plan(variant: PgVariant, dataDir: string) {
  return async (ctx: PlanContext): Promise<LaunchPlan> => {
    const options = { ...ctx.options, cacheDataDir: false };
    const provisioning = embeddedSettings(contextOf(options, { env: ctx.env, check: false }));
    const base = await planEmbeddedPostgres({ ...ctx, options }, provisioning, engineFor('postgres'));
    const { command, args, ...as } = base.server;
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (as.uid !== undefined && as.gid !== undefined) chownSync(dataDir, as.uid, as.gid);
    const settings = variant === 'tmpfs-nodurable' ? NON_DURABLE : {};
    // Ours are -D, -p, -h and -k (4 pairs), then the -c settings: keep the address, swap the rest.
    const address = args.slice(2, 8);
    return {
      ...base,
      // Plain initdb (it syncs, as a packaged install does); only auth and locale are pinned.
      init: [
        {
          command: join(dirname(command), 'initdb'),
          args: ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'],
          ...as,
        },
      ],
      server: { command, args: ['-D', dataDir, ...address, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])], ...as },
      cleanup: [dataDir, ...base.cleanup],
      snapshot: undefined,
      initCache: undefined,
      restoredFrom: undefined,
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
    context: contextOf({ dataRoot: join(dirs.shm, 'registry') }),
    plan: plan(variant, dataDir),
  });
  const c = new pg.Client({ host: info.host, port: info.port, user: info.user, database: 'postgres' });
  await c.connect();
  const rows = await c.query<{ name: string; setting: string }>(`SELECT name, setting FROM pg_settings WHERE name = ANY($1)`, [
    ['fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_wal_size', 'wal_level', 'data_directory', 'server_version'],
  ]);
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
