/** A migrate given as a command on an embedded MariaDB (or MySQL) started by the library: the template's URL reaches it in DATABASE_URL. */
import mysql from 'mysql2/promise';
import { afterAll, expect, test } from 'vitest';
import { createTestDatabase } from '../../../src/index.js';
import { privateDataRoot, removeDataRoot } from '../../core/helpers.js';

const dataRoot = privateDataRoot('my-command');
// removeDataRoot stops the servers under it.
afterAll(() => removeDataRoot(dataRoot));

test("a command migrate runs with the template's URL, and every clone has what it created", async () => {
  const db = await createTestDatabase({
    engine: 'mysql',
    dataRoot,
    prefix: 'ftmyc',
    worker: 'a',
    migrate: 'node test/fixtures/core/steps/mysql-command.cjs',
    migrationFiles: 'test/fixtures/core/steps/mysql-command.cjs',
  });
  try {
    const c = await mysql.createConnection({ uri: db.url });
    try {
      const [rows] = await c.query('SELECT id FROM command_item');
      expect(rows).toEqual([{ id: 7 }]);
    } finally {
      await c.end();
    }
  } finally {
    await db.destroy();
  }
});
