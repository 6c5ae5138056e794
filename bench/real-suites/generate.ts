/**
 * The real-suite shapes, written as source into a directory of their own: no app is copied, every
 * file comes from here. Each shape writes a plain config (an app's own: a server already up, its URL
 * in APP_DATABASE_URL, its schema made by the suite's global setup) and a fast-test-db config (the
 * runner wrapper from the built package, the same schema as its migrate).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST } from '../lib/dist.js';

export type ShapeId = 'imports' | 'drizzle' | 'typeorm-pg' | 'typeorm-mariadb';

export interface Shape {
  id: ShapeId;
  runner: 'vitest' | 'jest';
  engine: 'postgres' | 'mysql';
  title: string;
}

export const SHAPES: Record<ShapeId, Shape> = {
  imports: { id: 'imports', runner: 'vitest', engine: 'postgres', title: 'import-heavy Vitest suite, pg' },
  drizzle: { id: 'drizzle', runner: 'vitest', engine: 'postgres', title: 'Drizzle + postgres.js, Vitest, BEGIN/ROLLBACK per test' },
  'typeorm-pg': { id: 'typeorm-pg', runner: 'jest', engine: 'postgres', title: 'TypeORM synchronize per file, Jest (ts-jest), PostgreSQL' },
  'typeorm-mariadb': {
    id: 'typeorm-mariadb',
    runner: 'jest',
    engine: 'mysql',
    title: 'TypeORM synchronize per file, Jest (ts-jest), MariaDB',
  },
};

export interface ShapeScale {
  /** Test files (imports: ~60; drizzle: a few; typeorm: a dozen). */
  files: number;
  /** Modules of the generated graph every file of the import-heavy shape loads. */
  modules?: number;
}

function put(dir: string, rel: string, text: string): void {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

const distUrl = (entry: string) => JSON.stringify(pathToFileURL(join(DIST, entry)).href);
const pad = (i: number) => String(i).padStart(3, '0');

const PG_SCHEMA = `CREATE TABLE IF NOT EXISTS account (id serial PRIMARY KEY, email text NOT NULL UNIQUE, plan text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS invoice (id serial PRIMARY KEY, account_id int NOT NULL REFERENCES account(id), cents int NOT NULL, status text NOT NULL);
CREATE INDEX IF NOT EXISTS invoice_account ON invoice (account_id);`;

/** A Vitest project's two configs: plain (global setup makes the schema in the shared database) and fast-test-db. */
function vitestConfigs(dir: string, include: string, schema: string): void {
  put(dir, 'schema.ts', `export const SCHEMA = ${JSON.stringify(schema)};\n`);
  put(
    dir,
    'plain-global-setup.ts',
    `// The app's own global setup: its migrations into the shared database the compose file runs.
import pg from 'pg';
import { SCHEMA } from './schema.js';
export default async function () {
  const c = new pg.Client(process.env.APP_DATABASE_URL);
  await c.connect();
  await c.query(SCHEMA);
  await c.end();
}
`,
  );
  put(
    dir,
    'vitest.plain.config.ts',
    `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { include: [${JSON.stringify(include)}], globalSetup: ['./plain-global-setup.ts'] } });
`,
  );
  put(
    dir,
    'vitest.ftdb.config.ts',
    `import pg from 'pg';
import { defineConfig } from 'vitest/config';
import { SCHEMA } from './schema.js';
const { withFastTestDb } = await import(${distUrl('vitest.js')});
export default defineConfig(
  withFastTestDb(
    { test: { include: [${JSON.stringify(include)}] } },
    {
      envVar: 'APP_DATABASE_URL',
      async migrate(url: string) {
        const c = new pg.Client(url);
        await c.connect();
        await c.query(SCHEMA);
        await c.end();
      },
    },
  ),
);
`,
  );
}

/** A module of the graph: a few hundred lines of typed data and functions over it, as an app's domain code. */
function graphModule(i: number, modules: number): string {
  const next = i + 1 < modules ? `import { rate${i + 1} } from './m${pad(i + 1)}.js';\n` : '';
  const rows = Array.from(
    { length: 120 },
    (_, k) =>
      `  { code: 'c${i}-${k}', label: 'Item ${i}/${k} of the catalog', weight: ${(k * 7 + i) % 97}, tags: ['t${k % 5}', 't${(k + i) % 7}'] },`,
  ).join('\n');
  const fns = Array.from(
    { length: 20 },
    (_, k) => `export function rule${i}_${k}(x: Entry): number {
  const base = x.weight * ${k + 1} + x.tags.length;
  return x.code.endsWith('${k}') ? base * 2 : base - ${k};
}`,
  ).join('\n');
  return `${next}export interface Entry { code: string; label: string; weight: number; tags: string[] }
export const table${i}: Entry[] = [
${rows}
];
${fns}
export function rate${i}(n: number): number {
  return ${i + 1 < modules ? `rate${i + 1}(n) + ` : ''}table${i}.reduce((s, x) => s + rule${i}_${i % 20}(x), 0) * n;
}
`;
}

/** Shape (a): ~60 files, each loading a module graph of a few hundred KB, then 2-3 queries through pg. */
export function writeImports(dir: string, scale: ShapeScale): void {
  const modules = scale.modules ?? 24;
  for (let i = 0; i < modules; i++) put(dir, `src/lib/m${pad(i)}.ts`, graphModule(i, modules));
  put(dir, 'src/lib/index.ts', Array.from({ length: modules }, (_, i) => `export * from './m${pad(i)}.js';`).join('\n') + '\n');
  put(
    dir,
    'src/db.ts',
    `import pg from 'pg';
export const pool = new pg.Pool({ connectionString: process.env.APP_DATABASE_URL, max: 2 });
`,
  );
  for (let f = 0; f < scale.files; f++)
    put(
      dir,
      `test/f${pad(f)}.test.ts`,
      `import { afterAll, expect, test } from 'vitest';
import { pool } from '../src/db.js';
import { rate0, table${f % modules} } from '../src/lib/index.js';
afterAll(() => pool.end());
test('bills an account for its plan', async () => {
  const price = Math.round(rate0(1)) % 10_000;
  const { rows: [a] } = await pool.query('INSERT INTO account (email, plan) VALUES ($1, $2) RETURNING id', ['f${f}-' + process.pid + '-' + Date.now() + '@x.test', 'pro']);
  await pool.query("INSERT INTO invoice (account_id, cents, status) VALUES ($1, $2, 'open')", [a.id, price]);
  const { rows } = await pool.query('SELECT sum(cents)::int AS total FROM invoice WHERE account_id = $1', [a.id]);
  expect(rows[0].total).toBe(price);
});
test('reads the catalog', () => {
  expect(table${f % modules}.length).toBe(120);
});
`,
    );
  vitestConfigs(dir, 'test/*.test.ts', PG_SCHEMA);
}

export function writeShape(shape: ShapeId, dir: string, scale: ShapeScale): void {
  if (shape !== 'imports') throw new Error(`shape ${shape} is not generated yet`);
  writeImports(dir, scale);
}
