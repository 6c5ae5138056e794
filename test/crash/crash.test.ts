/**
 * SIGKILL a real test process at each step the library takes to build a template, clone it and
 * reset it (stopped there by FAST_TEST_DB_TEST_PAUSE, not by a sleep that hopes to land there).
 * Then the next process with the same worker id must get its database, `clean` must leave nothing
 * of ours, and a foreign database, even one named like ours, must be untouched.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clean } from '../../src/cli/tools/clean.js';
import type { ServerRoles, SqlClient } from '../../src/engines/engine.js';
import { engineFor } from '../../src/engines/index.js';
import { stagingName } from '../../src/engines/marker.js';
import { createTestDatabase, startServer, type Engine, type ServerInfo } from '../../src/index.js';
import { quoteIdent } from '../../src/engines/quote.js';
import { privateDataRoot, removeDataRoot, ROOT } from '../core/helpers.js';

interface Outcome {
  name: string;
  built: boolean;
  kinds: Array<{ code: string }>;
  items: number;
  restored: string[];
}

function run(env: Record<string, string>, pauseAt?: string): { paused: Promise<void>; done: Promise<Outcome>; kill: () => Promise<void> } {
  const pauseFile = join(env.DATA_ROOT!, `pause-${process.hrtime.bigint()}`);
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/crash/worker.mts')], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...(pauseAt ? { FAST_TEST_DB_TEST_PAUSE: pauseAt, FAST_TEST_DB_TEST_PAUSE_FILE: pauseFile } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const done = exited.then((code) => {
    if (code !== 0) throw new Error(`worker exited ${code}: ${err.slice(-2000)}`);
    return JSON.parse(out.trim().split('\n').pop()!) as Outcome;
  });
  const paused = (async () => {
    for (; pauseAt; ) {
      if (existsSync(pauseFile) && readFileSync(pauseFile, 'utf8').includes(`"paused":"${pauseAt}"`)) return;
      if (child.exitCode !== null)
        throw new Error(`worker exited ${child.exitCode} before pausing at ${pauseAt}: ${out}${err.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  // Only one of the two is awaited by a test: the other must not turn into an unhandled rejection.
  done.catch(() => undefined);
  paused.catch(() => undefined);
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(pauseFile, { force: true });
  };
  return { paused, done, kill };
}

const STEPS: Record<Engine, { template: string[]; clone: string[] }> = {
  // PostgreSQL creates under a staging name, marks, renames: each gap is a kill point.
  postgres: {
    template: ['template:created', 'template:marked', 'template:renamed', 'template:migrate', 'template:migrated'],
    clone: ['clone:created', 'clone:marked', 'clone:renamed', 'reset'],
  },
  // MySQL creates schema and marker in one round trip; the clone script is cut after them.
  mysql: { template: ['template:migrate', 'template:migrated'], clone: ['clone:created', 'reset'] },
};

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`killed at each step (${engine})`, () => {
    // Made in beforeAll, so that a run filtered to the other engine leaves no empty folder behind.
    let dataRoot = '';
    const prefix = engine === 'postgres' ? 'crashpg' : 'crashmy';
    const base = { ENGINE: engine, DATA_ROOT: '', PREFIX: prefix };
    let roles: ServerRoles;
    let server: ServerInfo;
    let admin: SqlClient;
    const foreign = [`${prefix}_foreign`, `${prefix}_wforeign`];
    const id = (n: string) => quoteIdent(engine, n);

    beforeAll(async () => {
      dataRoot = base.DATA_ROOT = privateDataRoot(`crash-${engine}`);
      roles = await engineFor(engine).load();
      // This process holds the server, so that it outlives the processes killed below.
      server = await startServer({ engine, dataRoot, prefix, idleTimeoutMs: 60_000 });
      admin = await roles.connector.connect(server);
      // Databases we did not create, one of them under a worker's final name.
      for (const name of foreign) {
        await admin.query(`CREATE DATABASE ${id(name)}`);
        const c = await roles.connector.connect(server, name);
        await c.query(`CREATE TABLE precious (v int)`);
        await c.query(`INSERT INTO precious VALUES (7)`);
        await c.close();
      }
    });

    afterAll(async () => {
      for (const name of foreign) await admin?.query(`DROP DATABASE IF EXISTS ${id(name)}`);
      await admin?.close();
      if (dataRoot) await removeDataRoot(dataRoot);
    });

    for (const step of [...STEPS[engine].template, ...STEPS[engine].clone]) {
      it(`${step}: the next process with the same worker id goes on`, async () => {
        const isTemplate = step.startsWith('template:');
        const env = {
          ...base,
          WORKER: `k${step.replace(/\W/g, '')}`,
          CACHE_KEY: isTemplate ? `crash-${step}` : 'crash-shared',
          RESET: step === 'reset' ? '1' : '0',
        };
        const victim = run(env, step);
        await victim.paused;
        await victim.kill();
        // What the kill left: ours by its staging name alone, by its marker, or a marked final name.
        const final = `${prefix}_w${env.WORKER}`;
        if (step === 'clone:created' && roles.templates.staged)
          expect(await roles.markers.readMarker(admin, stagingName(final))).toBeNull();
        else if (step === 'clone:marked')
          expect(await roles.markers.readMarker(admin, stagingName(final))).toMatchObject({ tool: 'fast-test-db' });
        else if (!isTemplate) expect(await roles.markers.readMarker(admin, final)).toMatchObject({ tool: 'fast-test-db' });
        else if (step === 'template:created' || step === 'template:marked') expect(await roles.markers.listStaging(admin)).toHaveLength(1);
        else {
          const states = [];
          for (const t of await roles.markers.listOurs(admin, `${prefix}_tpl_`))
            states.push(await roles.templates.templateState(admin, t.name));
          expect(states).toContain('incomplete');
        }
        const next = await run(env).done;
        expect(next.kinds).toEqual([{ code: 'a' }, { code: 'b' }]);
        expect(next.items).toBe(0);
        if (isTemplate) expect(next.built).toBe(true);
        // The seeded row the test deleted is back, on both engines, and the report says so.
        if (step === 'reset') expect(next.restored).toEqual(['kind']);
        expect(await roles.markers.readMarker(admin, stagingName(next.name))).toBeUndefined();
      });
    }

    if (engine === 'mysql')
      it('a clone script still running for a killed client does not block the next run', async () => {
        const env = { ...base, WORKER: 'kscript', CACHE_KEY: 'crash-shared', RESET: '0' };
        const victim = run(env, 'clone:created');
        await victim.paused;
        // Play the server still running the dead client's script: a transaction open in that schema.
        const mysql = await import('mysql2/promise');
        const script = await mysql.createConnection({
          socketPath: server.socket,
          user: server.user,
          password: server.password,
          database: `${prefix}_w${env.WORKER}`,
        });
        script.on('error', () => undefined);
        await script.query('CREATE TABLE busy (v int)');
        await script.query('BEGIN');
        await script.query('INSERT INTO busy VALUES (1)');
        await victim.kill();
        const next = await run(env).done;
        expect(next.kinds).toEqual([{ code: 'a' }, { code: 'b' }]);
        await expect(script.query('SELECT 1')).rejects.toThrow(); // its connection was ended
        script.destroy();
      });

    it('a foreign database under a worker name still gets NOT_OURS', async () => {
      const attempt = createTestDatabase({
        engine,
        dataRoot,
        prefix,
        worker: 'foreign',
        cacheKey: 'crash-shared',
        migrate: async () => undefined,
      });
      await expect(attempt).rejects.toMatchObject({ code: 'NOT_OURS' });
    });

    it('clean leaves nothing of ours and touches nothing else', async () => {
      // A creation killed before its marker, under a staging name of a worker that never came back.
      if (roles.templates.staged) await admin.query(`CREATE DATABASE ${id(stagingName(`${prefix}_wgone`))}`);
      const report = await clean({ olderThanMs: 0, dataRoot, prefix, servers: false });
      expect(report.ok).toBe(true);
      expect(await roles.markers.listOurs(admin, prefix)).toEqual([]);
      expect(await roles.markers.listStaging(admin)).toEqual([]);
      for (const name of foreign) {
        const c = await roles.connector.connect(server, name);
        expect(await c.query(`SELECT v FROM precious`)).toEqual([{ v: 7 }]);
        await c.close();
      }
    });
  });
}
