/**
 * prismaTestDb's template: committed migrations applied once, recorded in _prisma_migrations the
 * way `prisma migrate deploy` records them, and rebuilt when a migration changes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prismaTestDb, type PrismaTestDb } from '../../../adapters/prisma/index.js';
import { openScriptExecutor } from '../../../adapters/prisma/driver.js';
import { isFastTestDbError } from '../../../src/errors.js';

type Engine = 'postgres' | 'mysql';
const noClient = () => ({});
const dirs: string[] = [];
const opened: Array<PrismaTestDb<object>> = [];
afterAll(async () => {
  for (const t of opened) {
    await t.close();
    await t.database.destroy({ force: true }).catch(() => undefined);
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the zoo project with a unique marker, so that its fingerprint is new to the server. */
function project(engine: Engine): { schema: string; migrations: string; initSql: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ftdb-prisma-mig-'));
  dirs.push(dir);
  cpSync(`test/adapters/prisma/zoo/${engine}`, dir, { recursive: true });
  const initSql = join(dir, 'migrations/20250101000000_init/migration.sql');
  writeFileSync(initSql, readFileSync(initSql, 'utf8') + `\n-- run ${randomUUID()}\n`);
  return { schema: join(dir, 'schema.prisma'), migrations: join(dir, 'migrations'), initSql };
}

async function open(_engine: Engine, p: { schema: string }, extra: Record<string, unknown> = {}) {
  const t = await prismaTestDb({ factory: noClient, schema: p.schema, suffix: 'prismamig', ...extra });
  opened.push(t);
  return t;
}

async function migrationRows(t: PrismaTestDb<object>) {
  const run = await openScriptExecutor(t.database.connection, t.database.server.engine === 'postgres' ? 'postgres' : 'mysql');
  try {
    return await run.query('SELECT * FROM _prisma_migrations ORDER BY started_at');
  } finally {
    await run.close();
  }
}

async function columns(t: PrismaTestDb<object>) {
  const run = await openScriptExecutor(t.database.connection, t.database.server.engine === 'postgres' ? 'postgres' : 'mysql');
  try {
    const sql =
      t.database.server.engine === 'postgres'
        ? `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS def FROM information_schema.columns WHERE table_name = '_prisma_migrations' AND table_schema = current_schema() ORDER BY ordinal_position`
        : `SELECT column_name AS name, column_type AS type, is_nullable AS nullable, column_default AS def FROM information_schema.columns WHERE table_name = '_prisma_migrations' AND table_schema = DATABASE() ORDER BY ordinal_position`;
    return await run.query(sql);
  } finally {
    await run.close();
  }
}

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`Prisma migrations on ${engine}`, () => {
    it('records _prisma_migrations as migrate deploy does', async () => {
      const p = project(engine);
      const t = await open(engine, p, { worker: 'm1' });
      const rows = await migrationRows(t);
      expect(rows).toHaveLength(1);
      const r = rows[0]!;
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.checksum).toBe(createHash('sha256').update(readFileSync(p.initSql)).digest('hex'));
      expect(r.migration_name).toBe('20250101000000_init');
      expect(r.logs).toBeNull();
      expect(r.rolled_back_at).toBeNull();
      expect(Number(r.applied_steps_count)).toBe(1);
      const started = new Date(engine === 'postgres' ? (r.started_at as Date) : `${String(r.started_at).replace(' ', 'T')}Z`).getTime();
      const finished = new Date(engine === 'postgres' ? (r.finished_at as Date) : `${String(r.finished_at).replace(' ', 'T')}Z`).getTime();
      expect(finished).toBeGreaterThanOrEqual(started);
      expect(Math.abs(Date.now() - started)).toBeLessThan(10 * 60_000);
      // The table itself is the schema engine's.
      const cols = await columns(t);
      expect(cols.map((c) => c.name)).toEqual([
        'id',
        'checksum',
        'finished_at',
        'migration_name',
        'logs',
        'rolled_back_at',
        'started_at',
        'applied_steps_count',
      ]);
      const types = cols.map((c) => String(c.type).toLowerCase());
      expect(types).toEqual(
        engine === 'postgres'
          ? [
              'character varying',
              'character varying',
              'timestamp with time zone',
              'character varying',
              'text',
              'timestamp with time zone',
              'timestamp with time zone',
              'integer',
            ]
          : ['varchar(36)', 'varchar(64)', 'datetime(3)', 'varchar(255)', 'text', 'datetime(3)', 'datetime(3)', 'int(10) unsigned'],
      );
      expect(cols.map((c) => c.nullable)).toEqual(['NO', 'NO', 'YES', 'NO', 'YES', 'YES', 'NO', 'NO']);
    });

    it('runs the migrations once across workers', async () => {
      const p = project(engine);
      const ts = await Promise.all(['r1', 'r2', 'r3'].map((w) => open(engine, p, { worker: w })));
      expect(ts.filter((t) => t.database.template.built)).toHaveLength(1);
      expect(new Set(ts.map((t) => t.database.template.name)).size).toBe(1);
      // Clones carry the template's row: the same id everywhere means one run.
      const ids = await Promise.all(ts.map(async (t) => (await migrationRows(t)).map((r) => r.id)));
      expect(ids[0]).toHaveLength(1);
      expect(ids[1]).toEqual(ids[0]);
      expect(ids[2]).toEqual(ids[0]);
    });

    it('a changed migration rebuilds the template; an unchanged one does not', async () => {
      const p = project(engine);
      const a = await open(engine, p, { worker: 'c1' });
      const again = await open(engine, p, { worker: 'c2' });
      expect(again.database.template.built).toBe(false);
      expect(again.database.template.name).toBe(a.database.template.name);
      writeFileSync(
        p.initSql,
        readFileSync(p.initSql, 'utf8') +
          (engine === 'postgres' ? 'ALTER TABLE "Tag" ADD COLUMN "extra" TEXT;\n' : 'ALTER TABLE `Tag` ADD COLUMN `extra` TEXT;\n'),
      );
      const b = await open(engine, p, { worker: 'c3' });
      expect(b.database.template.built).toBe(true);
      expect(b.database.template.name).not.toBe(a.database.template.name);
      const row = (await migrationRows(b))[0]!;
      expect(row.checksum).toBe(createHash('sha256').update(readFileSync(p.initSql)).digest('hex'));
      const run = await openScriptExecutor(b.database.connection, engine === 'postgres' ? 'postgres' : 'mysql');
      try {
        await run.query(engine === 'postgres' ? 'SELECT "extra" FROM "Tag"' : 'SELECT `extra` FROM `Tag`');
      } finally {
        await run.close();
      }
    });
  });
}

describe('Prisma migrations: order, failures and the CLI path (PostgreSQL)', () => {
  it('applies migrations in directory-name order', async () => {
    const p = project('postgres');
    const later = join(p.migrations, '20250102000000_add_note');
    mkdirSync(later);
    // Depends on the first migration: fails if applied out of order.
    writeFileSync(join(later, 'migration.sql'), 'ALTER TABLE "Tag" ADD COLUMN "note" TEXT;\n');
    const t = await open('postgres', p, { worker: 'o1' });
    expect((await migrationRows(t)).map((r) => r.migration_name)).toEqual(['20250101000000_init', '20250102000000_add_note']);
  });

  it('a failing migration is MIGRATION_FAILED and names the migration', async () => {
    const p = project('postgres');
    const bad = join(p.migrations, '20250103000000_broken');
    mkdirSync(bad);
    writeFileSync(join(bad, 'migration.sql'), 'ALTER TABLE "NoSuchTable" ADD COLUMN "x" INT;\n');
    const err = await open('postgres', p, { worker: 'f1' }).catch((e: unknown) => e);
    expect(isFastTestDbError(err, 'MIGRATION_FAILED')).toBe(true);
    expect(String(err)).toContain('20250103000000_broken');
  });

  it('a migration_lock.toml for another provider is refused', async () => {
    const p = project('postgres');
    writeFileSync(join(p.migrations, 'migration_lock.toml'), 'provider = "mysql"\n');
    const err = await open('postgres', p).catch((e: unknown) => e);
    expect(isFastTestDbError(err, 'BAD_OPTION')).toBe(true);
  });

  it('the CLI path says clearly when the schema engine is missing', async () => {
    const p = project('postgres');
    const saved = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
    process.env.PRISMA_SCHEMA_ENGINE_BINARY = '/nonexistent/schema-engine';
    try {
      const err = await open('postgres', p, { worker: 'cli1', migrateWith: 'migrate-deploy' }).catch((e: unknown) => e);
      expect(isFastTestDbError(err, 'BINARY_NOT_FOUND'), String(err)).toBe(true);
      expect(String(err)).toContain('migrateWith: "sql"');
    } finally {
      if (saved === undefined) delete process.env.PRISMA_SCHEMA_ENGINE_BINARY;
      else process.env.PRISMA_SCHEMA_ENGINE_BINARY = saved;
    }
  });

  it('the CLI path runs the real CLI: it migrates where the engine exists, and says so where it does not', async () => {
    const p = project('postgres');
    const saved = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
    delete process.env.PRISMA_SCHEMA_ENGINE_BINARY;
    try {
      const res = await open('postgres', p, { worker: 'cli2', migrateWith: 'migrate-deploy' }).then(
        async (t) => ({ ok: true as const, rows: await migrationRows(t) }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      if (res.ok) expect(res.rows.map((r) => r.migration_name)).toEqual(['20250101000000_init']);
      else expect(isFastTestDbError(res.e, 'BINARY_NOT_FOUND'), String(res.e)).toBe(true);
    } finally {
      if (saved !== undefined) process.env.PRISMA_SCHEMA_ENGINE_BINARY = saved;
    }
  });
});
