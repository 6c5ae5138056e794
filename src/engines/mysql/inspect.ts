/** What a MySQL/MariaDB server is (its settings read back) and who is connected to it. */
import type { DescribeReport, ServerInfo } from '../../types.js';
import type { Inspector } from '../engine.js';
import type { OpenSession } from '../marker.js';
import type { MysqlClient } from './client.js';
import { flavorOfVersion } from './flavor.js';
import { lit } from './quote.js';
import { MYSQL_DESCRIBE_SETTINGS, MYSQL_TUNED_EXPECT } from './tuning.js';

/** Client connections only: the server's own threads (InnoDB workers, the event scheduler) run as 'system user' or as daemons. */
async function sessions(admin: MysqlClient): Promise<OpenSession[]> {
  const rows = await admin.query<{ id: number | string; user: string; database: string | null; client: string | null }>(
    `SELECT ID AS id, USER AS user, DB AS \`database\`, HOST AS client FROM information_schema.PROCESSLIST
      WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Daemon', 'Binlog Dump') AND USER NOT IN ('system user', 'event_scheduler')
      ORDER BY ID`,
  );
  return rows.map((r) => ({ pid: Number(r.id), user: r.user, database: r.database ?? undefined, client: r.client ?? undefined }));
}

/** The connections to `name` other than the caller's. */
async function openSessions(admin: MysqlClient, name: string): Promise<OpenSession[]> {
  const rows = await admin.query<{ id: number | string; user: string; client: string | null; state: string | null; query: string | null }>(
    `SELECT ID AS id, USER AS user, HOST AS client, STATE AS state, LEFT(INFO, 120) AS query FROM information_schema.PROCESSLIST
      WHERE DB = ? AND ID <> CONNECTION_ID()`,
    [name],
  );
  return rows.map((r) => ({
    pid: Number(r.id),
    user: r.user,
    database: name,
    client: r.client ?? undefined,
    state: r.state || undefined,
    query: r.query || undefined,
  }));
}

function normalize(name: string, value: string): string {
  if (name === 'innodb_doublewrite' || name === 'log_bin') return value === '0' ? 'OFF' : value === '1' ? 'ON' : value.toUpperCase();
  return value;
}

async function describe(admin: MysqlClient, server: ServerInfo): Promise<DescribeReport> {
  const [v] = await admin.query<{ v: string }>('SELECT VERSION() AS v');
  const version = v?.v ?? server.version;
  const rows = await admin.query<{ Variable_name: string; Value: string }>(
    `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${MYSQL_DESCRIBE_SETTINGS.map(lit).join(', ')})`,
  );
  const settings: Record<string, string> = {};
  for (const r of rows) settings[r.Variable_name] = String(r.Value);
  const untuned: DescribeReport['untuned'] = {};
  for (const [k, expected] of Object.entries(MYSQL_TUNED_EXPECT)) {
    const actual = settings[k] === undefined ? '(missing)' : normalize(k, settings[k]!);
    if (actual !== expected) untuned[k] = { expected, actual };
  }
  return {
    engine: 'mysql',
    flavor: flavorOfVersion(version),
    version,
    owned: server.owned,
    provider: server.provider,
    tuned: Object.keys(untuned).length === 0,
    settings,
    untuned,
  };
}

/**
 * MariaDB names each session's thread in PROCESSLIST.TID (10.5+). MySQL has no such column, and the
 * MySQL we start runs without performance_schema, so it is never paired (cpu-pairing.ts pairingCpu).
 * A server without TID gives no tasks, and so no pairing.
 */
async function sessionTasks(admin: MysqlClient, name: string): Promise<number[]> {
  const rows = await admin
    .query<{ tid: number | string | null }>(
      `SELECT TID AS tid FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()`,
      [name],
    )
    .catch(() => []);
  return rows.map((r) => Number(r.tid)).filter((t) => t > 0);
}

export const inspector: Inspector<MysqlClient> = { describe, sessions, openSessions, sessionTasks };
