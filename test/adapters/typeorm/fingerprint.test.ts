/** The offline schema fingerprint: what changes it and what must not. */
import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, type DataSourceOptions } from 'typeorm';
import { inspectSchema } from '../../../adapters/typeorm/fingerprint.js';
import { AddWidgetColor1700000000001, CreateWidgets1700000000000 } from './fixtures/migrations.js';

@Entity('fp_thing')
class Short {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20 }) name!: string;
}
@Entity('fp_thing')
class Long {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 21 }) name!: string;
}
@Entity('fp_thing')
class Indexed {
  @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20, unique: true }) name!: string;
}

const fp = (o: Partial<DataSourceOptions>) => inspectSchema(DataSource, { type: 'postgres', ...o } as DataSourceOptions);

describe('typeorm fingerprint', () => {
  it('ignores where the database is, and is stable', async () => {
    const a = await fp({ entities: [Short], host: 'a', database: 'one', password: 'x' } as never);
    const b = await fp({ entities: [Short], host: 'b', database: 'two', port: 5433 } as never);
    expect(a).toEqual(b);
    expect(a.source).toBe('synchronize');
  });

  it('changes with a column length, a unique constraint, the engine', async () => {
    const base = (await fp({ entities: [Short] })).fingerprint;
    expect((await fp({ entities: [Long] })).fingerprint).not.toBe(base);
    expect((await fp({ entities: [Indexed] })).fingerprint).not.toBe(base);
    expect((await inspectSchema(DataSource, { type: 'mariadb', entities: [Short] })).fingerprint).not.toBe(base);
  });

  it('follows the migrations, not the entities, when there are migrations', async () => {
    const one = await fp({ entities: [Short], migrations: [CreateWidgets1700000000000] });
    const two = await fp({ entities: [Long], migrations: [CreateWidgets1700000000000] });
    const more = await fp({ entities: [Short], migrations: [CreateWidgets1700000000000, AddWidgetColor1700000000001] });
    expect(one.source).toBe('migrations');
    expect(two.fingerprint).toBe(one.fingerprint);
    expect(more.fingerprint).not.toBe(one.fingerprint);
    const both = await fp({ entities: [Short], migrations: [CreateWidgets1700000000000], synchronize: true });
    expect(both.source).toBe('both');
    expect((await fp({ entities: [Long], migrations: [CreateWidgets1700000000000], synchronize: true })).fingerprint).not.toBe(
      both.fingerprint,
    );
  });
});
