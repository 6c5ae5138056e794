// The plain project's setup file: this worker's database, emptied before every test file.
import pg from 'pg';
import { TABLES } from './app/store.js';
import { workerUrl } from './plain-global-setup.js';

process.env.APP_DATABASE_URL = workerUrl(process.env.BENCH_SMALL_PG_URL!, process.env.VITEST_POOL_ID ?? '1');
const c = new pg.Client(process.env.APP_DATABASE_URL);
await c.connect();
await c.query(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
await c.end();
