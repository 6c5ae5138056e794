/**
 * fastInsert on a TypeORM DataSource whose `driver` option is not node-postgres (here a PGlite
 * driver, as typeorm-pglite gives) refuses with UNSUPPORTED and the reason, before it sends
 * anything, instead of failing inside that module on pg's query objects.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DataSource, EntitySchema } from 'typeorm';
import { fastInsert } from '../../../adapters/typeorm/index.js';
import { pgliteDriver } from './fixtures/pglite-driver.js';

const Note = new EntitySchema<{ id: number; body: string }>({
  name: 'note',
  columns: { id: { type: Number, primary: true, generated: 'increment' }, body: { type: String } },
});
const ds = new DataSource({ type: 'postgres', driver: pgliteDriver(), entities: [Note], synchronize: true });
beforeAll(async () => {
  await ds.initialize();
});
afterAll(async () => {
  await ds.destroy();
});

it('refuses with UNSUPPORTED, naming the driver option, and the DataSource itself still works', async () => {
  const repo = ds.getRepository(Note);
  const e = (await fastInsert(repo, { body: 'x' }).catch((x: unknown) => x)) as Error & { code: string; fix: string };
  expect(e).toMatchObject({ name: 'FastTestDbError', code: 'UNSUPPORTED' });
  expect(e.message).toContain("this DataSource's `driver` option is another module");
  expect(e.fix).toContain('repository.insert()');
  await repo.insert({ body: 'by insert()' });
  expect(await repo.find()).toEqual([{ id: 1, body: 'by insert()' }]);
});
