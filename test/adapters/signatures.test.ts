/**
 * fastInsert's signatures across the adapters: one row in, one record out; an array in, an array
 * out; `returning: false`, nothing. Checked by the project's type check (the behaviour behind them
 * is test/adapters/contract.ts).
 */
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { Repository } from 'typeorm';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as drizzle from '../../adapters/drizzle/index.js';
import * as prisma from '../../adapters/prisma/index.js';
import * as typeorm from '../../adapters/typeorm/index.js';
import * as myZoo from './drizzle/zoo-mysql.js';
import * as pgZoo from './drizzle/zoo-pg.js';

describe('the signatures', () => {
  it('say one in, one out; an array in, an array out; returning: false, nothing (checked by tsc)', () => {
    // Never called: the assertions are on the types, which the project's type check compiles.
    const check = (pg: NodePgDatabase, my: MySql2Database, repo: Repository<Point>) => {
      type PgPerson = typeof pgZoo.people.$inferSelect;
      expectTypeOf(drizzle.fastInsert(pg, pgZoo.people, { fullName: 'x' })).resolves.toEqualTypeOf<PgPerson>();
      expectTypeOf(drizzle.fastInsert(pg, pgZoo.people, [{ fullName: 'x' }])).resolves.toEqualTypeOf<PgPerson[]>();
      expectTypeOf(drizzle.fastInsert(pg, pgZoo.people, { fullName: 'x' }, { returning: false })).resolves.toBeVoid();
      expectTypeOf(drizzle.fastInsert(my, myZoo.people, { fullName: 'x' }))
        .resolves.toHaveProperty('id')
        .toEqualTypeOf<number>();
      expectTypeOf(drizzle.fastInsert(my, myZoo.people, [{ fullName: 'x' }])).resolves.toBeArray();
      expectTypeOf(typeorm.fastInsert(repo, { x: 1 })).resolves.toEqualTypeOf<Point>();
      expectTypeOf(typeorm.fastInsert(repo, [{ x: 1 }])).resolves.toEqualTypeOf<Point[]>();
      expectTypeOf(typeorm.fastInsert(repo, [{ x: 1 }], { returning: false })).resolves.toBeVoid();
      type Delegate = {
        create(a: { data: { email: string } }): unknown;
        findFirstOrThrow(a?: never): Promise<{ id: number; email: string }>;
      };
      const user = {} as Delegate;
      expectTypeOf(prisma.fastInsert(user, { email: 'x' })).resolves.toEqualTypeOf<{ id: number; email: string }>();
      expectTypeOf(prisma.fastInsert(user, [{ email: 'x' }])).resolves.toEqualTypeOf<Array<{ id: number; email: string }>>();
      expectTypeOf(prisma.fastInsert(user, [{ email: 'x' }], { returning: false })).resolves.toBeVoid();
    };
    expect(check).toBeTypeOf('function');
  });
});

class Point {
  id!: number;
  x!: number;
}
