/**
 * Handles made in one process without a runner (typeormTestDb beside drizzleTestDb, two
 * createTestDatabase calls) default to the same worker name: each gets a database of its own, and
 * none drops another's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EntitySchema } from 'typeorm';
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzleTestDb } from '../../adapters/drizzle/index.js';
import { typeormTestDb } from '../../adapters/typeorm/index.js';
import { createTestDatabase, type TestDatabase } from '../../src/index.js';

const PREFIX = 'ftdbhandles';
const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const d of opened.reverse()) await d.destroy({ force: true }).catch(() => undefined);
});

describe('handles of one process', () => {
  it('two open createTestDatabase handles get two databases; a closed one gives its name back', async () => {
    const a = await createTestDatabase({ prefix: PREFIX, cacheKey: 'handles' });
    const b = await createTestDatabase({ prefix: PREFIX, cacheKey: 'handles' });
    opened.push(a, b);
    expect(b.name).not.toBe(a.name);
    expect(b.name).toBe(`${a.name}_h2`);
    // Both still answer: making b did not drop a.
    await a.reset();
    await b.reset();
    await a.close();
    const c = await createTestDatabase({ prefix: PREFIX, cacheKey: 'handles' });
    opened.push(c);
    expect(c.name).toBe(a.name);
  });

  it('typeormTestDb and drizzleTestDb side by side keep their own databases and rows', async () => {
    const Note = new EntitySchema<{ id: number; body: string }>({
      name: 'note_t',
      columns: { id: { type: Number, primary: true }, body: { type: String } },
    });
    const t = await typeormTestDb({ type: 'postgres', entities: [Note], synchronize: true }, { prefix: PREFIX });
    const notes = pgTable('note_d', { id: integer('id').primaryKey(), body: text('body') });
    const d = await drizzleTestDb({ schema: { notes }, engine: 'postgres', prefix: PREFIX });
    opened.push(t.database, d.database);
    try {
      expect(d.database.name).not.toBe(t.database.name);
      await t.dataSource.getRepository(Note).insert({ id: 1, body: 'typeorm' });
      await d.db.insert(notes).values({ id: 1, body: 'drizzle' });
      // The first handle's connection and rows survived the second handle's creation.
      expect(await t.dataSource.getRepository(Note).find()).toEqual([{ id: 1, body: 'typeorm' }]);
      expect(await d.db.select().from(notes)).toEqual([{ id: 1, body: 'drizzle' }]);
    } finally {
      await t.close();
      await d.close();
    }
  });
});
