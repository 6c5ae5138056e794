/**
 * CI past one machine. All shards on one shared server: 3 shards x 2 workers of one CI run, each a
 * separate process, against a server none of them owns; no names collide, the template is built
 * once, and `clean` removes only the databases of a crashed earlier job. Each shard on its own
 * server: two shards with their own embedded servers never meet.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeMarker, type Marker } from '../../src/engines/marker.js';
import { startPlainPostgres, type PlainPostgres } from '../helpers/plain-postgres.js';
import { isolatedEnv, jsonLines, runCli, runFixture } from './cli.js';

interface WorkerOut {
  name: string;
  port: number;
  owned: boolean;
  built: boolean;
  template: string;
}

const iso = isolatedEnv('cli-shard');
afterAll(() => iso.cleanup());

/** What a GitHub Actions matrix job sets: the run, its attempt, the shard; the runner sets the worker id. */
function ciEnv(run: number, attempt: number, shard: number, worker: number, url: string): NodeJS.ProcessEnv {
  return {
    ...iso.env,
    FAST_TEST_DB_URL: url,
    GITHUB_RUN_ID: String(run),
    GITHUB_RUN_ATTEMPT: String(attempt),
    FAST_TEST_DB_SHARD: String(shard),
    JEST_WORKER_ID: String(worker),
    FIXTURE_OWNER: `run${run}/shard${shard}/worker${worker}`,
  };
}

describe('all shards on one shared server', () => {
  let server: PlainPostgres;
  let admin: pg.Client;
  beforeAll(async () => {
    server = await startPlainPostgres();
    admin = new pg.Client(server.url);
    await admin.connect();
    await admin.query('CREATE DATABASE someone_elses');
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  test('3 shards x 2 workers: no collisions, one template build; clean removes only a crashed job', async () => {
    // This run: 3 shards x 2 workers, all at once.
    const jobs = [];
    for (const shard of [1, 2, 3]) for (const worker of [1, 2]) jobs.push(runFixture('worker.ts', ciEnv(42, 2, shard, worker, server.url)));
    const out = (await Promise.all(jobs)).map((o) => JSON.parse(o) as WorkerOut);

    // A job of an earlier run that crashed and left its databases behind, a day ago.
    const crashed = await Promise.all(
      [1, 2].map((w) => runFixture('worker.ts', ciEnv(41, 1, 1, w, server.url)).then((o) => JSON.parse(o) as WorkerOut)),
    );
    for (const c of crashed) {
      const { rows } = await admin.query<{ c: string }>(
        `SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = $1`,
        [c.name],
      );
      const m = JSON.parse(rows[0]!.c.slice('fast-test-db '.length)) as Marker;
      await admin.query(
        `COMMENT ON DATABASE "${c.name}" IS '${encodeMarker({ ...m, created: new Date(Date.now() - 26 * 3_600_000).toISOString() })}'`,
      );
    }

    const names = out.map((o) => o.name);
    expect(new Set(names).size).toBe(6);
    for (const shard of [1, 2, 3]) for (const worker of [1, 2]) expect(names).toContain(`ftdb_gh42a2_s${shard}_w${worker}`);
    expect(out.every((o) => !o.owned)).toBe(true);
    // Six processes raced for the template: exactly one built it; the other run reused it by fingerprint.
    expect(out.filter((o) => o.built)).toHaveLength(1);
    expect(new Set([...out, ...crashed].map((o) => o.template)).size).toBe(1);
    expect(crashed.filter((c) => c.built)).toHaveLength(0);
    // Each database holds exactly the one row its own worker wrote.
    for (const o of out) {
      const c = new pg.Client({ connectionString: server.url.replace(/\/postgres$/, `/${o.name}`) });
      await c.connect();
      const { rows } = await c.query<{ owner: string }>('SELECT owner FROM item');
      await c.end();
      const [, shard, worker] = /_s(\d)_w(\d)$/.exec(o.name)!;
      expect(rows).toEqual([{ owner: `run42/shard${shard}/worker${worker}` }]);
    }

    const clean = await runCli(['clean', '--older-than', '1d', server.url, '--json'], iso.env);
    expect(clean.code).toBe(0);
    const report = jsonLines<{ targets: Array<{ dropped: Array<{ name: string }> }> }>(clean.stdout)[0]!;
    expect(report.targets[0]!.dropped.map((d) => d.name).sort()).toEqual(crashed.map((c) => c.name).sort());
    const left = (
      await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'ftdb%' OR datname = 'someone_elses' ORDER BY 1`,
      )
    ).rows.map((r) => r.datname);
    expect(left).toEqual([...names, out[0]!.template, 'someone_elses'].sort());

    // The job's own `if: always()` step: this run's databases go, the shared template stays.
    const mine = await runCli(['clean', '--older-than', '0', '--run', 'gh42a2', server.url], iso.env);
    expect(mine.code).toBe(0);
    const final = (
      await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'ftdb%' OR datname = 'someone_elses' ORDER BY 1`,
      )
    ).rows.map((r) => r.datname);
    expect(final).toEqual([out[0]!.template, 'someone_elses'].sort());
  });
});

describe('each shard on its own embedded server', () => {
  test('two shards, two servers, two template builds, no shared state', async () => {
    const shards = [1, 2].map((shard) => isolatedEnv(`cli-shard${shard}`));
    try {
      const out = await Promise.all(
        shards.map((s, i) =>
          runFixture('worker.ts', {
            ...s.env,
            GITHUB_RUN_ID: '43',
            GITHUB_RUN_ATTEMPT: '1',
            FAST_TEST_DB_SHARD: String(i + 1),
            JEST_WORKER_ID: '1',
            FIXTURE_DESTROY: '1',
          }).then((o) => JSON.parse(o) as WorkerOut),
        ),
      );
      expect(out.map((o) => o.owned)).toEqual([true, true]);
      expect(out[0]!.port).not.toBe(out[1]!.port);
      expect(out.map((o) => o.built)).toEqual([true, true]);
      expect(out.map((o) => o.name)).toEqual(['ftdb_gh43a1_s1_w1', 'ftdb_gh43a1_s2_w1']);
    } finally {
      await Promise.all(shards.map((s) => s.cleanup()));
    }
  });
});
