/**
 * A migrate that misbehaves gets an answer: one that never resolves ends with MIGRATION_TIMEOUT (and
 * a process waiting for another's build says so), and a migrate given as a command runs with the
 * template's URL in its environment, its failure carrying its exit code and output.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import pg from 'pg';
import { createTestDatabase, FastTestDbError } from '../../src/index.js';
import { startWorker } from './helpers.js';

const COMMAND = 'node test/fixtures/core/migrate-command.cjs';
const FILES = 'test/fixtures/core/migrate-command.cjs';

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.FAST_TEST_DB_ENV_VAR;
});

async function tables(url: string): Promise<string[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const rows = await client.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
    return rows.rows.map((r) => r.t);
  } finally {
    await client.end();
  }
}

describe('a migrate that never resolves', () => {
  test('fails with MIGRATION_TIMEOUT naming the template and how long, and the next build goes on', async () => {
    const cacheKey = `hang-${Date.now()}`;
    const error = await createTestDatabase({
      worker: 'hang',
      cacheKey,
      migrateTimeoutMs: 1500,
      migrate: () => new Promise(() => {}),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastTestDbError);
    expect((error as FastTestDbError).code).toBe('MIGRATION_TIMEOUT');
    expect((error as FastTestDbError).message).toMatch(/^migrate did not finish within 1500 ms while building template ftdb_tpl_[0-9a-f]+/);
    expect((error as FastTestDbError).fix).toMatch(/migrateTimeoutMs/);
    const db = await createTestDatabase({
      worker: 'hang',
      cacheKey,
      migrate: async (url) => {
        const c = new pg.Client(url);
        await c.connect();
        await c.query('CREATE TABLE after_hang (id int)');
        await c.end();
      },
    });
    try {
      expect(await tables(db.url)).toEqual(['after_hang']);
    } finally {
      await db.destroy();
    }
  });

  test('a process waiting for another build says that it waits, and for which process', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr) as (chunk: string | Uint8Array) => boolean;
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return write(chunk);
    }) as typeof process.stderr.write);
    const options = {
      cacheKey: `slow-${Date.now()}`,
      migrate: async () => {
        await new Promise((r) => setTimeout(r, 2000));
      },
    };
    const builder = createTestDatabase({ ...options, worker: 'slow1' });
    await new Promise((r) => setTimeout(r, 500));
    const waiter = createTestDatabase({ ...options, worker: 'slow2' });
    const dbs = await Promise.all([builder, waiter]);
    await Promise.all(dbs.map((d) => d.destroy()));
    const waited = lines.filter((l) => l.includes('waiting'));
    expect(waited).toHaveLength(1);
    expect(waited[0]).toMatch(
      new RegExp(
        `^fast-test-db: waiting for template ${dbs[0]!.template.name}: process ${process.pid} has been building it since \\S+ \\(its migrate times out after 300 s\\)\\n$`,
      ),
    );
  });
});

describe('migrate as a command', () => {
  test("runs in the working directory with the template's URL in DATABASE_URL and in envVar", async () => {
    process.env.FAST_TEST_DB_ENV_VAR = 'APP_URL';
    const db = await createTestDatabase({ worker: 'cmd', migrate: COMMAND, migrationFiles: FILES });
    try {
      expect(await tables(db.url)).toEqual(['command_item']);
    } finally {
      await db.destroy();
    }
  });

  test('a command that fails: MIGRATION_FAILED with its exit code and its output', async () => {
    process.env.FAST_TEST_DB_ENV_VAR = 'APP_URL';
    const error = await createTestDatabase({ worker: 'cmdfail', migrate: `${COMMAND} --fail`, migrationFiles: FILES }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FastTestDbError);
    expect((error as FastTestDbError).code).toBe('MIGRATION_FAILED');
    const { message } = error as FastTestDbError;
    expect(message).toMatch(
      /^migrate command "node test\/fixtures\/core\/migrate-command.cjs --fail" exited with code 3 while building template ftdb_tpl_/,
    );
    expect(message).toContain('migrating ftdb_tpl_');
    expect(message).toContain('error: relation "users" already exists (in 002_users.sql)');
  });
});

describe('a migrate that leaves its client open', () => {
  test('does not crash the process: the client is closed, and a warning says where it was connected', async () => {
    const { line, exited } = startWorker({}, 'test/fixtures/core/left-open.mts');
    const report = await line;
    expect(await exited).toBe(0);
    expect(report.tables).toEqual(['left_item']);
    expect(report.ended).toBe(true);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(
      /^fast-test-db: migrate left a pg client open on template ftdb_tpl_[0-9a-f]+ \(connected at .*test\/fixtures\/core\/left-open\.mts:\d+:\d+\)/,
    );
  });
});
