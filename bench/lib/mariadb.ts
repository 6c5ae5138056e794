/**
 * MariaDB servers for the MariaDB class workload's steps: defaults with data on disk, defaults on tmpfs, tmpfs with
 * durability off, and that plus the write-up's bigger buffer pool/redo log and IO capacity. The
 * library's own launch plan is reused for the mechanics (bootstrap, unprivileged user, readiness)
 * with its tuning flags taken out and the step's own flags put in.
 */
import { resolveOptions } from '../../src/options/resolve.js';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findMysqlBinary, planEmbeddedMysql } from '../../src/engines/mysql/embedded.js';
import { engineFor } from '../../src/engines/index.js';
import type { LaunchPlan, PlanContext } from '../../src/server/os/launch.js';
import { contextOf } from '../../src/options/context.js';
import { acquireOwnedServer, stopOwnedServer } from '../../src/server/registry.js';
import { unprivilegedUser } from '../../src/server/os/user.js';
import { mysqlServerFlags } from '../../src/engines/mysql/tuning.js';
import type { ServerInfo } from '../../src/types.js';
import { benchDirs } from './dirs.js';

export type MariaVariant = 'disk' | 'tmpfs' | 'tmpfs-nodurable' | 'tmpfs-nodurable-big';

/** The MariaDB class workload's command-line flags, in the write-up's two stages (MariaDB spells the redo log size innodb-log-file-size). */
export const MARIA_NON_DURABLE = ['--skip-log-bin', '--innodb-flush-log-at-trx-commit=0', '--innodb-doublewrite=OFF'];
export const MARIA_BIG = [
  '--innodb-buffer-pool-size=512M',
  '--innodb-log-file-size=512M',
  '--innodb-io-capacity=10000',
  '--innodb-io-capacity-max=20000',
  '--innodb-flush-neighbors=0',
];

/** Flags that only name things or size connections: kept in every variant. */
const NEUTRAL = /^--(character-set-server|max-connections|skip-name-resolve)/;

export function variantFlags(v: MariaVariant): string[] {
  if (v === 'tmpfs-nodurable') return MARIA_NON_DURABLE;
  if (v === 'tmpfs-nodurable-big') return [...MARIA_NON_DURABLE, ...MARIA_BIG];
  return [];
}

export interface BenchMariadb {
  info: ServerInfo;
  dataDir: string;
  settings: Record<string, string>;
  stop(): Promise<void>;
}

function plan(variant: MariaVariant, diskData: string | undefined) {
  return async (ctx: PlanContext): Promise<LaunchPlan> => {
    const settings = contextOf(ctx.options, { env: ctx.env, check: false });
    const bin = findMysqlBinary(settings);
    const base = await planEmbeddedMysql(ctx, settings, engineFor('mysql'));
    const library = new Set(
      mysqlServerFlags({ flavor: bin.flavor, version: bin.version, maxConnections: 300 }).filter((f) => !NEUTRAL.test(f)),
    );
    const libraryData = `--datadir=${join(ctx.dir, 'mysql', 'data')}`;
    const rewrite = (args: string[]) => [
      ...args.filter((a) => !library.has(a)).map((a) => (diskData && a === libraryData ? `--datadir=${diskData}` : a)),
      ...variantFlags(variant),
    ];
    if (diskData) {
      mkdirSync(diskData, { recursive: true, mode: 0o700 });
      const user = unprivilegedUser(resolveOptions().runAs);
      if (user) chownSync(diskData, user.uid, user.gid);
    }
    return {
      ...base,
      init: base.init.map((c) => ({ ...c, args: rewrite(c.args) })),
      server: { ...base.server, args: rewrite(base.server.args) },
      cleanup: [...base.cleanup, ...(diskData ? [diskData] : [])],
    };
  };
}

let serial = 0;

export async function startBenchMariadb(variant: MariaVariant): Promise<BenchMariadb> {
  const dirs = benchDirs();
  const n = ++serial;
  const diskData = variant === 'disk' ? join(dirs.disk, `mariadb-${n}`) : undefined;
  const info = await acquireOwnedServer({
    engine: 'mysql',
    identity: ['bench', variant, n],
    context: contextOf({ dataRoot: join(dirs.shm, 'registry') }),
    plan: plan(variant, diskData),
  });
  const mysql = await import('mysql2/promise');
  const c = await mysql.createConnection({ socketPath: info.socket, user: info.user, password: info.password });
  const [rows] = await c.query(
    `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit','innodb_doublewrite','log_bin','innodb_buffer_pool_size','innodb_log_file_size','innodb_io_capacity','innodb_flush_neighbors','datadir','version')`,
  );
  await c.end();
  const settings = Object.fromEntries((rows as Array<{ Variable_name: string; Value: string }>).map((r) => [r.Variable_name, r.Value]));
  return {
    info,
    dataDir: settings.datadir ?? '',
    settings,
    stop: async () => void (info.stateDir && (await stopOwnedServer(info.stateDir))),
  };
}
