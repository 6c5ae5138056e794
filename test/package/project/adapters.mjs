// Each ORM adapter's entry point, once, as a script would use it without a runner: a database of
// its own with the ORM's schema (Drizzle and Prisma: their committed migrations; TypeORM: what
// synchronize builds), one row written (fastInsert; Prisma: plain SQL, as a generated client is
// not needed to apply migrations), and one more written in withRollback and gone after it. Prints
// one JSON line.
import 'reflect-metadata';
import pg from 'pg';
import { pgTable, serial, text } from 'drizzle-orm/pg-core';
import { EntitySchema } from 'typeorm';
import { createTestDatabase } from 'fast-test-db';
import { drizzleTestDb, fastInsert as drizzleInsert, withRollback as drizzleRollback } from 'fast-test-db/drizzle';
import { prismaTemplate } from 'fast-test-db/prisma';
import { fastInsert as typeormInsert, typeormTestDb, withRollback as typeormRollback } from 'fast-test-db/typeorm';

const out = {};

const gift = pgTable('gift', { id: serial('id').primaryKey(), name: text('name').notNull() });
const d = await drizzleTestDb({ schema: { gift }, migrationsFolder: 'drizzle' });
out.drizzle = await drizzleInsert(d.db, gift, { name: 'drizzle' });
out.rolledBack = {
  drizzle: await drizzleRollback(d.db, async (tx) => {
    await drizzleInsert(tx, gift, { name: 'gone' });
    return (await tx.select().from(gift)).length;
  }),
};
out.rolledBack.drizzleAfter = (await d.db.select().from(gift)).length;
await d[Symbol.asyncDispose](); // ends the pool and drops the database: it is the adapter's own

const Gift = new EntitySchema({
  name: 'Gift',
  tableName: 'gift',
  columns: { id: { type: Number, primary: true, generated: true }, name: { type: String } },
});
const t = await typeormTestDb({ type: 'postgres', entities: [Gift] });
await typeormInsert(t.dataSource.getRepository(Gift), { name: 'typeorm' });
out.typeorm = await t.dataSource.getRepository(Gift).findOneByOrFail({ name: 'typeorm' });
out.rolledBack.typeorm = await typeormRollback(t.dataSource, async (manager) => {
  await typeormInsert(manager.getRepository(Gift), { name: 'gone' });
  return manager.getRepository(Gift).count();
});
out.rolledBack.typeormAfter = await t.dataSource.getRepository(Gift).count();
await t.close(); // the DataSource, destroyed
await t.database.destroy();

const p = await createTestDatabase({ ...(await prismaTemplate({ schema: 'prisma/schema.prisma' })) });
const client = new pg.Client(p.url);
await client.connect();
out.prisma = (await client.query(`INSERT INTO "Gift" (name) VALUES ('prisma') RETURNING *`)).rows[0];
await client.end();
await p.destroy();

console.log(JSON.stringify(out));
