/**
 * `clean` safety: on a server with our leftovers and databases that are not ours (some named like
 * ours, one with a look-alike comment), only our stale databases go; and a server whose keeper was
 * killed is stopped and its data removed, while a running one is left alone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeMarker, type Marker } from '../../src/engines/marker.js';
import { pidAlive } from '../../src/server/os/lock.js';
import { waitFor } from '../core/helpers.js';
import { startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';
import { isolatedEnv, jsonLines, REPO, runCli, runFixture } from './cli.js';

const iso = isolatedEnv('cli-clean');
const env = iso.env;
afterAll(() => iso.cleanup());

const HOURS = 3_600_000;

async function databases(admin: pg.Client): Promise<string[]> {
  return (await admin.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY 1')).rows.map((r) => r.datname);
}

/** Makes one of our databases look `hours` old and left by a process that is gone. */
async function age(admin: pg.Client, name: string, hours: number): Promise<void> {
  const { rows } = await admin.query<{ c: string }>(
    `SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = $1`,
    [name],
  );
  const marker = JSON.parse(rows[0]!.c.slice('fast-test-db '.length)) as Marker;
  const old: Marker = { ...marker, created: new Date(Date.now() - hours * HOURS).toISOString(), pid: 2 ** 22 + 12345 };
  await admin.query(`COMMENT ON DATABASE "${name}" IS '${encodeMarker(old).replace(/'/g, "''")}'`);
}

describe('clean on a shared server', () => {
  let server: PlainPostgres;
  let admin: pg.Client;
  const foreign = ['app_data', 'ftdb_lookalike', 'ftdb_badjson', 'ftdb_othertool'];

  beforeAll(async () => {
    server = await startPlainPostgres();
    admin = new pg.Client(server.url);
    await admin.connect();
    for (const name of foreign) await admin.query(`CREATE DATABASE ${name}`);
    // Look-alikes: our prefix without a marker, a marker tag with broken JSON, another tool's JSON.
    await admin.query(`COMMENT ON DATABASE ftdb_badjson IS 'fast-test-db {not json'`);
    await admin.query(
      `COMMENT ON DATABASE ftdb_othertool IS 'fast-test-db {"tool":"other-tool","kind":"database","created":"2000-01-01T00:00:00Z"}'`,
    );
    const workerEnv = { ...env, FAST_TEST_DB_URL: server.url };
    await runFixture('worker.ts', { ...workerEnv, FAST_TEST_DB_RUN_ID: 'old', FAST_TEST_DB_WORKER: '1' });
    await runFixture('worker.ts', { ...workerEnv, FAST_TEST_DB_RUN_ID: 'new', FAST_TEST_DB_WORKER: '1' });
    await age(admin, 'ftdb_old_w1', 3);
    await age(admin, 'ftdb_othertool', 3000);
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  test('--dry-run lists the stale database and changes nothing', async () => {
    const before = await databases(admin);
    const r = await runCli(['clean', '--older-than', '2h', server.url, '--dry-run'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/would drop database ftdb_old_w1 \(3\.0h old, run old\)/);
    expect(r.stdout).not.toMatch(/would drop .*ftdb_new_w1/);
    expect(await databases(admin)).toEqual(before);
  });

  test('drops only our databases older than --older-than; everything else survives', async () => {
    const before = await databases(admin);
    const template = before.find((d) => d.startsWith('ftdb_tpl_'))!;
    expect(template).toBeDefined();
    const r = await runCli(['clean', '--older-than', '2h', server.url, '--json'], env);
    expect(r.code).toBe(0);
    const report = jsonLines<{
      ok: boolean;
      targets: Array<{ dropped: Array<{ name: string }>; kept: Array<{ name: string; reason: string }> }>;
    }>(r.stdout)[0]!;
    expect(report.ok).toBe(true);
    expect(report.targets[0]!.dropped.map((d) => d.name)).toEqual(['ftdb_old_w1']);
    expect(report.targets[0]!.kept.map((k) => k.name).sort()).toEqual(['ftdb_new_w1', template].sort());
    const after = await databases(admin);
    expect(after).toEqual(before.filter((d) => d !== 'ftdb_old_w1'));
    for (const name of foreign) expect(after).toContain(name);
  });

  test('--run takes one run and spares templates; a creator still alive keeps its database', async () => {
    // This test process pretends to be a live worker of run "new".
    const { rows } = await admin.query<{ c: string }>(
      `SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = 'ftdb_new_w1'`,
    );
    const marker = JSON.parse(rows[0]!.c.slice('fast-test-db '.length)) as Marker;
    await admin.query(`COMMENT ON DATABASE ftdb_new_w1 IS '${encodeMarker({ ...marker, pid: process.pid }).replace(/'/g, "''")}'`);
    const alive = await runCli(['clean', '--older-than', '0', '--run', 'new', server.url], env);
    expect(alive.code).toBe(0);
    expect(alive.stdout).toContain(`kept database ftdb_new_w1: its process ${process.pid} is still running`);
    expect(alive.stdout).toMatch(/kept template ftdb_tpl_\w+: templates are shared across runs/);
    expect(await databases(admin)).toContain('ftdb_new_w1');

    await age(admin, 'ftdb_new_w1', 0);
    const gone = await runCli(['clean', '--older-than', '0', '--run', 'new', server.url], env);
    expect(gone.code).toBe(0);
    expect(gone.stdout).toContain('dropped database ftdb_new_w1');
    const after = await databases(admin);
    expect(after).not.toContain('ftdb_new_w1');
    expect(after.some((d) => d.startsWith('ftdb_tpl_'))).toBe(true);
    for (const name of foreign) expect(after).toContain(name);
  });

  test('a database still in use is reported, exit 1, and --force is suggested', async () => {
    await runFixture('worker.ts', { ...env, FAST_TEST_DB_URL: server.url, FAST_TEST_DB_RUN_ID: 'busy', FAST_TEST_DB_WORKER: '1' });
    await age(admin, 'ftdb_busy_w1', 5);
    const holder = new pg.Client({ connectionString: server.url.replace(/\/postgres$/, '/ftdb_busy_w1') });
    await holder.connect();
    holder.on('error', () => undefined);
    try {
      const r = await runCli(['clean', '--older-than', '1h', server.url], env);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/could not drop database ftdb_busy_w1: .*being accessed by other users/);
      expect(r.stdout).toContain('add --force');
      const forced = await runCli(['clean', '--older-than', '1h', server.url, '--force'], env);
      expect(forced.code).toBe(0);
      expect(await databases(admin)).not.toContain('ftdb_busy_w1');
    } finally {
      await holder.end().catch(() => undefined);
    }
  });
});

describe('servers we started', () => {
  test("doctor, clean --dry-run and clean describe a server in the same words; a killed keeper's server is stopped", async () => {
    const url = await runCli(['url', '--idle-timeout', '5m'], env);
    expect(url.code).toBe(0);
    const entry = JSON.parse((await runCli(['doctor', '--json'], env)).stdout).checks.find((c: { id: string }) => c.id === 'owned-server');
    const dir: string = entry.detail;
    const status = JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8')) as { keeperPid: number; serverPid: number };
    expect(pidAlive(status.serverPid)).toBe(true);
    expect(entry.title).toContain(`running (keeper ${status.keeperPid}, `);

    const running = await runCli(['clean', '--older-than', '0'], env);
    expect(running.code).toBe(0);
    expect(running.stdout).toContain(`server ${dir}: kept (running (keeper ${status.keeperPid}, `);
    expect(pidAlive(status.serverPid)).toBe(true);

    // A keeper killed with SIGKILL leaves PostgreSQL running with nobody to stop it.
    process.kill(status.keeperPid, 'SIGKILL');
    while (pidAlive(status.keeperPid)) await new Promise((r) => setTimeout(r, 20));
    expect(pidAlive(status.serverPid)).toBe(true);
    const words = `lost its keeper; server process ${status.serverPid} still runs`;
    const doctor = await runCli(['doctor'], env);
    expect(doctor.stdout).toContain(`this project's postgres`);
    expect(doctor.stdout).toContain(words);
    const dry = await runCli(['clean', '--older-than', '0', '--dry-run'], env);
    expect(dry.stdout).toContain(`server ${dir}: would stop (${words})`);
    expect(pidAlive(status.serverPid)).toBe(true);

    // Another project's clean (another cwd) does not see it, nor does a clean of another server's URL.
    const elsewhere = await runCli(['clean', '--older-than', '0'], env, { cwd: join(REPO, 'test') });
    expect(elsewhere.stdout).not.toContain(dir);
    const plain = await startPlainPostgres();
    try {
      const other = await runCli(['clean', '--older-than', '0', plain.url], env);
      expect(other.code).toBe(0);
      expect(other.stdout).not.toContain(dir);
      expect(pidAlive(status.serverPid)).toBe(true);
    } finally {
      await plain.stop();
    }
    const everyProject = await runCli(['clean', '--older-than', '0', '--all', '--dry-run'], env, { cwd: join(REPO, 'test') });
    expect(everyProject.stdout).toContain(`server ${dir}: would stop (${words})`);

    const reaped = await runCli(['clean', '--older-than', '0'], env);
    expect(reaped.code).toBe(0);
    expect(reaped.stdout).toContain(`server ${dir}: stopped (${words})`);
    // Stopped; the pid stays a zombie until this machine's init reaps it.
    expect(await waitFor(() => !pidAlive(status.serverPid), 10_000)).toBe(true);
    // Nothing of it is left: not its data, not its bookkeeping, not its folder.
    expect(existsSync(dir)).toBe(false);
  });
});
