// Read by every runner integration (Jest, Vitest, node:test, Mocha, Playwright).
import pg from 'pg';
import { defineConfig } from 'fast-test-db';

export default defineConfig({
  cacheKey: 'scratch',
  async migrate(url) {
    const client = new pg.Client(url);
    await client.connect();
    try {
      await client.query('CREATE TABLE visit (id serial PRIMARY KEY, file text NOT NULL)');
    } finally {
      await client.end();
    }
  },
});
