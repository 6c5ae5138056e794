/**
 * init on this repository's examples: as they are (adopted already, so a dry run says it would
 * refuse and writes nothing), and each in the "before" state docs/adopting.md describes (a shared
 * database in .env.test, a global setup that migrates it, one worker), where init's dry run must
 * leave nothing by hand. The lines it changes are the figures docs/adopting.md gives.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../../runners/harness.js';
import { init, write } from './projects.js';

const EXAMPLES = ['typeorm-jest', 'drizzle-vitest', 'prisma-vitest'] as const;

/** The runner config and global setup each example had before adoption (docs/adopting.md, "The examples, before and after"). */
const BEFORE: Record<(typeof EXAMPLES)[number], Record<string, string>> = {
  'typeorm-jest': {
    'jest.config.cjs': `const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\\\.ts$': ['@swc/jest', swc] },
  setupFiles: ['<rootDir>/test/env.ts'], // dotenv: .env.test
  globalSetup: '<rootDir>/test/global-setup.ts',
  maxWorkers: 1, // one shared test database
  testTimeout: 600_000,
};
`,
    'test/env.ts': "import { config } from 'dotenv';\nconfig({ path: '.env.test', quiet: true });\n",
    'test/global-setup.ts': `import { DataSource, type DataSourceOptions } from 'typeorm';
import { dataSourceOptions } from '../src/data-source';

export default async function globalSetup() {
  const ds = new DataSource({ ...dataSourceOptions, url: process.env.DATABASE_URL } as DataSourceOptions);
  await ds.initialize();
  await ds.synchronize(true); // drop everything, create from the entities
  await ds.destroy();
}
`,
    'test/db.ts': `import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { dataSourceOptions } from '../src/data-source';

export function useTestDataSource(): () => DataSource {
  const ds = new DataSource({ ...dataSourceOptions, url: process.env.DATABASE_URL } as DataSourceOptions);
  beforeAll(() => ds.initialize());
  beforeEach(() => ds.query('TRUNCATE point RESTART IDENTITY CASCADE'));
  afterAll(() => ds.destroy());
  return () => ds;
}

export const POINTS = Math.max(1, Math.round(10_000 * Number(process.env.POINTS_SCALE ?? 1)));
`,
    '.env.test': 'DATABASE_URL=postgres://app:app@localhost:5432/app_test\n',
  },
  'drizzle-vitest': {
    'vitest.config.ts': `import { config } from 'dotenv';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    env: config({ path: '.env.test', quiet: true }).parsed,
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    fileParallelism: false,
  },
});
`,
    'test/global-setup.ts': `import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

export default async function setup() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
  try {
    await pool.query('DROP SCHEMA IF EXISTS public CASCADE; DROP SCHEMA IF EXISTS drizzle CASCADE; CREATE SCHEMA public');
    await migrate(drizzle(pool), { migrationsFolder: 'drizzle' });
  } finally {
    await pool.end();
  }
}
`,
    '.env.test': 'DATABASE_URL=postgres://app:app@localhost:5432/blog_test\n',
  },
  'prisma-vitest': {
    'vitest.config.ts': `import { config } from 'dotenv';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    env: config({ path: '.env.test', quiet: true }).parsed,
    globalSetup: ['./test/global-setup.ts'],
    setupFiles: ['./test/setup.ts'],
    fileParallelism: false,
  },
});
`,
    'test/global-setup.ts': `import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

export default async function setup() {
  execFileSync('npx', ['prisma', 'generate'], { stdio: 'pipe' });
  // what \`prisma migrate reset --force\` does, written out (no schema engine needed)
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public');
    for (const dir of readdirSync('prisma/migrations').filter((d) => d !== 'migration_lock.toml').sort())
      await client.query(readFileSync(\`prisma/migrations/\${dir}/migration.sql\`, 'utf8'));
  } finally {
    await client.end();
  }
}
`,
    '.env.test': 'DATABASE_URL=postgres://app:app@localhost:5432/blog_test\n',
  },
};

/** What init's dry run changes in each before state, and what it leaves by hand. */
const EXPECTED: Record<(typeof EXAMPLES)[number], { files: Array<[string, number]>; left: RegExp[] }> = {
  'typeorm-jest': { files: [['jest.config.cjs', 9]], left: [] },
  'drizzle-vitest': { files: [['vitest.config.ts', 10]], left: [] },
  'prisma-vitest': { files: [['vitest.config.ts', 8]], left: [/test\/global-setup\.ts .* builds the schema and does more/] },
};

function copyExample(name: string): string {
  const dir = mkdtempSync(`/tmp/ftdb-init-example-${name}-`);
  cpSync(join(ROOT, 'examples', name), dir, { recursive: true, filter: (src) => !/node_modules|generated/.test(src) });
  return dir;
}

describe.each(EXAMPLES)('examples/%s', (name) => {
  test('as it is: a dry run says it would refuse, and writes nothing', async () => {
    const dir = join(ROOT, 'examples', name);
    const config = name === 'typeorm-jest' ? 'jest.config.cjs' : 'vitest.config.ts';
    const before = readFileSync(join(dir, config), 'utf8');
    const r = await init(dir, '--dry-run');
    expect(r.code).toBe(0);
    expect(r.json.refused).toEqual([`${config} already uses fast-test-db`]);
    expect(readFileSync(join(dir, config), 'utf8')).toBe(before);
  });

  test('in its before state: the dry run adopts it', async () => {
    const dir = copyExample(name);
    try {
      write(dir, BEFORE[name]);
      const r = await init(dir, '--dry-run');
      expect(r.code, JSON.stringify(r.error)).toBe(0);
      expect(r.json.refused).toEqual([]);
      const want = EXPECTED[name];
      expect(r.json.files.map((f) => [f.path, f.lines])).toEqual(want.files);
      expect(r.json.left).toHaveLength(want.left.length);
      for (const [i, re] of want.left.entries()) expect(r.json.left[i]).toMatch(re);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
