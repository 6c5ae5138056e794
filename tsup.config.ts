import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

/** Public entry points, built for both ESM and CommonJS ("exports" in package.json). */
const dual = {
  index: 'src/index.ts',
  typeorm: 'adapters/typeorm/index.ts',
  prisma: 'adapters/prisma/index.ts',
  drizzle: 'adapters/drizzle/index.ts',
  jest: 'src/runners/jest/index.ts',
  vitest: 'src/runners/vitest/index.ts',
  mocha: 'src/runners/mocha/index.ts',
  playwright: 'src/runners/playwright/index.ts',
  'reporters/jest': 'src/reporters/jest.ts',
  'reporters/vitest': 'src/reporters/vitest.ts',
  'reporters/jest-setup': 'src/reporters/record-jest.ts',
  'reporters/vitest-setup': 'src/reporters/record-vitest.ts',
  // Loaded by path, not imported: the keeper process and the files runners load (Jest's setup
  // files run in a CommonJS sandbox, hence the .cjs builds).
  keeper: 'src/server/keeper/keeper.ts',
  'runners/jest-setup': 'src/runners/jest/setup.ts',
  'runners/jest-global-setup': 'src/runners/jest/global-setup.ts',
  'runners/jest-global-teardown': 'src/runners/jest/global-teardown.ts',
  'runners/jest-sequencer': 'src/runners/jest/sequencer.ts',
  'runners/vitest-global-setup': 'src/runners/vitest/global-setup.ts',
};

/**
 * ES modules only: node:test's preload and Vitest's setup file finish with top-level await (the
 * database exists before test files load), and the CLI is a bin.
 */
const esmOnly = {
  'node-test': 'src/runners/node-test/index.ts',
  'runners/vitest-setup': 'src/runners/vitest/setup.ts',
  cli: 'src/cli/index.ts',
};

/**
 * removeNodeProtocol: tsup 8 strips `node:` by default, which turns `import('node:test')` into
 * `import('test')`: a package name, since `test` exists only as `node:test`.
 * test/package/dist.test.ts checks that no built file imports a bare built-in name.
 */
const common: Options = {
  // Our version, part of every template fingerprint: written in from package.json, never by hand.
  define: { __FAST_TEST_DB_VERSION__: JSON.stringify(version) },
  dts: true,
  splitting: true,
  sourcemap: false,
  shims: true,
  target: 'node20',
  platform: 'node',
  clean: false,
  removeNodeProtocol: false,
};

export default defineConfig([
  { ...common, entry: dual, format: ['esm', 'cjs'] },
  { ...common, entry: esmOnly, format: ['esm'] },
]);
