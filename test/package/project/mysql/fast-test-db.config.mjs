// The MySQL/MariaDB project: the same suite under Jest and Vitest, with and without the reporters' setup files.
import mysql from 'mysql2/promise';
import { defineConfig } from 'fast-test-db';

export default defineConfig({
  engine: 'mysql',
  cacheKey: 'scratch-mysql',
  async migrate(url) {
    const c = await mysql.createConnection({ uri: url });
    try {
      await c.query('CREATE TABLE visit (id INT PRIMARY KEY AUTO_INCREMENT, driver VARCHAR(40) NOT NULL)');
    } finally {
      await c.end();
    }
  },
});
