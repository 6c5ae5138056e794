/**
 * `npm start`: a demonstration of the whole path on the embedded default, with nothing installed by hand. It starts a
 * tuned PostgreSQL, builds a template once, hands two workers their own databases, and prints
 * each step with its time.
 */
import { createTestDatabase } from '../index.js';
import { resolveOptions } from '../options/resolve.js';
import { keptLine } from '../runners/shared/banner.js';

const steps: Array<[string, number]> = [];
async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  steps.push([label, performance.now() - started]);
  process.stdout.write(`  ${label.padEnd(58)} ${(performance.now() - started).toFixed(1).padStart(8)} ms\n`);
  return result;
}

let migrations = 0;
const options = {
  cacheKey: 'demo-schema-v1',
  async migrate(url: string) {
    migrations++;
    const pg = (await import('pg')).default;
    const client = new pg.Client(url);
    await client.connect();
    await client.query(`
      CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
      CREATE TABLE book (id serial PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL);`);
    await client.end();
  },
};

process.stdout.write('fast-test-db: demonstration on the embedded default\n');
const first = await step('start tuned PostgreSQL, build template, clone worker 1', () => createTestDatabase({ ...options, worker: '1' }));
const second = await step('worker 2: join the server, reuse the template, clone', () => createTestDatabase({ ...options, worker: '2' }));
const report = await first.describe();
process.stdout.write(`\n  server: PostgreSQL ${report.version} (${first.server.provider}, owned), tuned: ${report.tuned}\n`);
for (const name of ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_level'])
  process.stdout.write(`    ${name} = ${report.settings[name]}\n`);
process.stdout.write(`  template: ${first.template.name}; migrate ran ${migrations} time(s) for 2 workers\n`);
process.stdout.write(`  worker 1: ${first.url}\n  worker 2: ${second.url}\n\n`);

const pg = (await import('pg')).default;
const client = new pg.Client(first.url);
await client.connect();
await step('worker 1: insert 1,000 rows', () => client.query(`INSERT INTO author (name) SELECT 'a' || g FROM generate_series(1, 1000) g`));
const reset = await step('worker 1: first reset() (connects, reads the catalog once)', () => first.reset());
process.stdout.write(`    emptied: ${reset.emptied.join(', ') || '(none)'}\n`);
await client.query(`INSERT INTO author (name) VALUES ('a'), ('b'); INSERT INTO book (author_id, title) VALUES (1, 't')`);
await step('worker 1: reset() again, 2 of 2 tables dirty', () => first.reset());
await client.end();
await step('drop both worker databases', () => Promise.all([first.destroy(), second.destroy()]));
const { reuse, idleTimeoutMs } = resolveOptions(options);
process.stdout.write(
  `\ndone in ${steps.reduce((a, [, ms]) => a + ms, 0).toFixed(0)} ms; ${reuse ? 'run it again: it joins the server and its template' : 'the server stops by itself once this process exits'}.\n`,
);
// In this repository the command is not installed under its own name: npm stop runs it from the sources.
if (reuse) process.stdout.write(`${keptLine(idleTimeoutMs, 'npm stop')}\n`);
