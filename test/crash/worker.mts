/**
 * A test process for the crash suite: gets its database (building the template when needed), and
 * with RESET=1 dirties it and resets it. Prints one JSON line. FAST_TEST_DB_TEST_PAUSE stops it at a
 * step for the suite to SIGKILL it there.
 */
import { createTestDatabase, type Engine } from '../../src/index.js';

const env = process.env;
const engine = env.ENGINE as Engine;

async function exec(url: string, statements: string[]): Promise<unknown[]> {
  if (engine === 'postgres') {
    const pg = (await import('pg')).default;
    const c = new pg.Client(url);
    await c.connect();
    try {
      const out = [];
      for (const s of statements) out.push((await c.query(s)).rows);
      return out;
    } finally {
      await c.end();
    }
  }
  const mysql = await import('mysql2/promise');
  const c = await mysql.createConnection({ uri: url });
  try {
    const out = [];
    for (const s of statements) out.push((await c.query(s))[0]);
    return out;
  } finally {
    await c.end();
  }
}

const db = await createTestDatabase({
  engine,
  dataRoot: env.DATA_ROOT,
  worker: env.WORKER,
  prefix: env.PREFIX,
  cacheKey: env.CACHE_KEY,
  idleTimeoutMs: 60_000,
  migrate: (url) =>
    exec(url, [
      'CREATE TABLE kind (code varchar(8) PRIMARY KEY)',
      "INSERT INTO kind VALUES ('a'), ('b')",
      'CREATE TABLE item (id int PRIMARY KEY, kind varchar(8) REFERENCES kind (code))',
    ]).then(() => undefined),
});
let restored: string[] = [];
if (env.RESET === '1') {
  await exec(db.url, ["INSERT INTO item VALUES (1, 'a')", "DELETE FROM kind WHERE code = 'b'"]);
  restored = (await db.reset()).restored;
}
const [kinds] = await exec(db.url, ['SELECT code FROM kind ORDER BY code']);
const [items] = (await exec(db.url, ['SELECT count(*) AS n FROM item'])) as Array<Array<{ n: number | string }>>;
process.stdout.write(
  JSON.stringify({ name: db.name, built: db.template.built, template: db.template.name, kinds, items: Number(items![0]!.n), restored }) +
    '\n',
);
