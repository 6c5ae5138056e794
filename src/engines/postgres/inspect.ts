/** What a PostgreSQL server is (its settings read back) and who is connected to it. */
import type { DescribeReport } from '../../types.js';
import type { Inspector } from '../engine.js';
import type { OpenSession } from '../marker.js';
import type { PgClient } from './client.js';
import { POSTGRES_TUNED_EXPECT } from './tuning.js';

async function openSessions(admin: PgClient, name: string): Promise<OpenSession[]> {
  const rows = await admin.query<{
    pid: number;
    app: string;
    addr: string | null;
    port: number | null;
    state: string | null;
    query: string;
  }>(
    `SELECT pid, application_name AS app, host(client_addr) AS addr, client_port AS port, state, left(query, 120) AS query
       FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [name],
  );
  return rows.map((r) => ({
    pid: r.pid,
    application: r.app || undefined,
    client: r.addr ? `${r.addr}:${r.port}` : 'local socket',
    state: r.state ?? undefined,
    query: r.query || undefined,
  }));
}

async function sessionTasks(admin: PgClient, name: string): Promise<number[]> {
  const rows = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
    name,
  ]);
  return rows.map((r) => r.pid);
}

/** Client backends only: autovacuum, the checkpointer and the like are the server's own. */
async function sessions(admin: PgClient): Promise<OpenSession[]> {
  const rows = await admin.query<{ pid: number; user: string | null; database: string | null; application: string; client: string | null }>(
    `SELECT pid, usename AS "user", datname AS database, application_name AS application,
            coalesce(host(client_addr) || ':' || client_port, 'local socket') AS client
       FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY pid`,
  );
  return rows.map((r) => ({
    pid: r.pid,
    user: r.user ?? undefined,
    database: r.database ?? undefined,
    application: r.application || undefined,
    client: r.client ?? undefined,
  }));
}

export const inspector: Inspector<PgClient> = {
  openSessions,
  sessionTasks,
  sessions,
  async describe(admin, server): Promise<DescribeReport> {
    const names = [
      ...Object.keys(POSTGRES_TUNED_EXPECT),
      'server_version',
      'max_connections',
      'wal_level',
      'max_wal_size',
      'checkpoint_timeout',
      'autovacuum',
      'shared_buffers',
    ];
    const rows = await admin.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM pg_settings WHERE name = ANY($1)`,
      [names],
    );
    const settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    const untuned: DescribeReport['untuned'] = {};
    for (const [k, expected] of Object.entries(POSTGRES_TUNED_EXPECT))
      if (settings[k] !== expected) untuned[k] = { expected, actual: settings[k] ?? '' };
    return {
      engine: 'postgres',
      flavor: 'postgres',
      version: (settings.server_version ?? server.version).split(' ')[0]!,
      owned: server.owned,
      provider: server.provider,
      tuned: Object.keys(untuned).length === 0,
      settings,
      untuned,
    };
  },
};
