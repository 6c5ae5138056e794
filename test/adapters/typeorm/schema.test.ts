/**
 * typeormTestDb's template: built once per schema (across processes), rebuilt when an entity
 * changes, UNLOGGED when asked, and not tripped up by foreign-key cycles.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Column, Entity, ManyToOne, PrimaryGeneratedColumn, type DataSource } from 'typeorm';
import { fastInsert, typeormTestDb } from '../../../adapters/typeorm/index.js';
import { quoteIdent } from '../../../src/engines/quote.js';
import { SERVER_ENV } from '../../../src/options/handoff.js';
import type { TestDatabase } from '../../../src/types.js';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..', '..');
const engines: Array<'postgres' | 'mysql'> = ['postgres', 'mysql'];
const opened: Array<{ dataSource: DataSource; database: TestDatabase }> = [];

afterAll(async () => {
  for (const o of opened.reverse()) {
    if (o.dataSource.isInitialized) await o.dataSource.destroy();
    await o.database.destroy({ force: true });
  }
});

async function open(...args: Parameters<typeof typeormTestDb>) {
  const r = await typeormTestDb(...args);
  opened.push(r);
  return r;
}

// Same table, two versions of the entity: the second adds a column.
@Entity('gizmo')
class GizmoV1 {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20 }) name!: string;
}
@Entity('gizmo')
class GizmoV2 {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20 }) name!: string;
  @Column({ type: 'int', default: 0 }) weight!: number;
}

// A two-table cycle and a self-reference, the shapes that break naive UNLOGGED conversion and DDL replay.
@Entity('cyc_team')
class Team {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20 }) name!: string;
  @ManyToOne(() => Person, { nullable: true }) captain!: Person | null;
}
@Entity('cyc_person')
class Person {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20 }) name!: string;
  @ManyToOne(() => Team, { nullable: true }) team!: Team | null;
  @ManyToOne(() => Person, { nullable: true }) mentor!: Person | null;
}
@Entity('cyc_leaf')
class Leaf {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @ManyToOne(() => Person) owner!: Person;
}

for (const engine of engines) {
  const type = engine === 'postgres' ? 'postgres' : 'mariadb';

  describe(`typeormTestDb on ${engine}`, () => {
    it("close() keeps the database; disposing drops it, as the database is the adapter's own", async () => {
      const t = await open({ type, entities: [GizmoV1] }, { worker: 'shape' });
      await t.database.reset();
      await t.close();
      expect(t.dataSource.isInitialized).toBe(false);
      expect((await t.database.reset()).emptied).toEqual([]);
      await t[Symbol.asyncDispose]();
      await expect(t.database.reset()).rejects.toThrow();
    });

    it('builds the template once, and again when an entity changes', async () => {
      const cacheKey = `entity-change-${randomUUID()}`;
      const first = await open({ type, entities: [GizmoV1] }, { cacheKey, worker: 'g1' });
      const again = await open({ type, entities: [GizmoV1] }, { cacheKey, worker: 'g2' });
      expect(first.database.template.built).toBe(true);
      expect(again.database.template.built).toBe(false);
      expect(again.database.template.name).toBe(first.database.template.name);

      const changed = await open({ type, entities: [GizmoV2] }, { cacheKey, worker: 'g3' });
      expect(changed.database.template.built).toBe(true);
      expect(changed.database.template.name).not.toBe(first.database.template.name);
      const res = await fastInsert(changed.dataSource.getRepository(GizmoV2), { name: 'heavy', weight: 5 });
      expect(res).toEqual({ id: 1, name: 'heavy', weight: 5 });
      await expect(first.dataSource.query(`INSERT INTO gizmo (name, weight) VALUES ('x', 1)`)).rejects.toThrow(/weight/);
      // The worker DataSource must not synchronize on its own: the schema came from the template.
      expect(changed.dataSource.options.synchronize).toBe(false);
    });

    it('runs migrations once across parallel worker processes', async () => {
      const anchor = await open({ type, entities: [GizmoV1] }, { worker: 'anchor' });
      const dir = mkdtempSync(join(tmpdir(), 'ftdb-typeorm-'));
      const logFile = join(dir, 'migrations.log');
      const cacheKey = `parallel-${randomUUID()}`;
      try {
        const workers = ['p1', 'p2', 'p3', 'p4'].map((w) =>
          run(join(root, 'node_modules/.bin/tsx'), [join(here, 'fixtures/migrate-worker.ts')], {
            cwd: root,
            env: {
              ...process.env,
              [SERVER_ENV]: JSON.stringify([anchor.database.server]),
              FTDB_ENGINE: engine,
              FTDB_WORKER: w,
              FTDB_CACHE_KEY: cacheKey,
              FTDB_MIGRATION_LOG: logFile,
            },
            timeout: 90_000,
          }),
        );
        const outs = (await Promise.all(workers)).map((r) => JSON.parse(r.stdout.trim().split('\n').pop()!));
        expect(readFileSync(logFile, 'utf8').trim().split('\n')).toHaveLength(1);
        expect(outs.filter((o) => o.built)).toHaveLength(1);
        expect(new Set(outs.map((o) => o.template)).size).toBe(1);
        expect(new Set(outs.map((o) => o.name)).size).toBe(4);
        for (const o of outs) expect(o.applied).toEqual(['CreateWidgets1700000000000', 'AddWidgetColor1700000000001']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('handles foreign-key cycles and self-references', async () => {
      const { dataSource } = await open(
        { type, entities: [Team, Person, Leaf] },
        { worker: 'cyc', unlogged: engine === 'postgres' ? true : undefined },
      );
      const t = await fastInsert(dataSource.getRepository(Team), { name: 'reds' });
      const boss = await fastInsert(dataSource.getRepository(Person), { name: 'boss', team: t.id as never });
      await fastInsert(dataSource.getRepository(Person), { name: 'kid', team: t.id as never, mentor: { id: boss.id } as never });
      await dataSource.getRepository(Team).update(t.id, { captain: { id: boss.id } as never });
      await fastInsert(dataSource.getRepository(Leaf), { owner: boss.id as never });
      const captain = quoteIdent(engine, 'captainId');
      const rows = await dataSource.query(`SELECT p.name, t.name AS team FROM cyc_person p JOIN cyc_team t ON t.${captain} = p.id`);
      expect(rows).toEqual([{ name: 'boss', team: 'reds' }]);
      await expect(fastInsert(dataSource.getRepository(Leaf), { owner: 999 as never })).rejects.toThrow(/foreign key/i);
    });
  });
}

describe('UNLOGGED templates on postgres', () => {
  const tables = ['cyc_team', 'cyc_person', 'cyc_leaf'];
  const persistence = async (ds: DataSource) =>
    Object.fromEntries(
      (await ds.query(`SELECT relname, relpersistence FROM pg_class WHERE relname = ANY($1) AND relkind = 'r'`, [tables])).map(
        (r: { relname: string; relpersistence: string }) => [r.relname, r.relpersistence],
      ),
    );

  it('converts every entity table, cycles included, when unlogged: true', async () => {
    const { dataSource } = await open({ type: 'postgres', entities: [Team, Person, Leaf] }, { worker: 'unl', unlogged: true });
    expect(await persistence(dataSource)).toEqual({ cyc_team: 'u', cyc_person: 'u', cyc_leaf: 'u' });
    // The cycle's foreign keys were put back after the conversion.
    const fks = await dataSource.query(
      `SELECT conrelid::regclass::text AS t FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text = ANY($1)`,
      [tables],
    );
    expect(fks).toHaveLength(4);
  });

  it('keeps tables permanent when unlogged: false', async () => {
    const { dataSource } = await open({ type: 'postgres', entities: [Team, Person, Leaf] }, { worker: 'log', unlogged: false });
    expect(await persistence(dataSource)).toEqual({ cyc_team: 'p', cyc_person: 'p', cyc_leaf: 'p' });
  });
});
