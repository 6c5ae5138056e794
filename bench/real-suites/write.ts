/** The generators' shared pieces: writing a file of a suite, its package.json, a CommonJS tsconfig for ts-jest. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function put(dir: string, rel: string, text: string): void {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

/**
 * The suite's own package.json. Its configs import `fast-test-db/...` by name, from the packed
 * package the leg installs into the suite's node_modules (steps.ts), as a user has it: loaded by
 * path from the repo's dist/ instead, Vitest ran the library through its module runner in every
 * file and Jest transformed it (neither does that to node_modules), which made the library's setup
 * look 1.6-2x as costly as installed. ESM for Vitest's configs; CommonJS for ts-jest's output.
 */
export function packageJson(dir: string, name: string, runner: 'vitest' | 'jest'): void {
  put(
    dir,
    'package.json',
    JSON.stringify({ name: `bench-${name}`, private: true, ...(runner === 'vitest' ? { type: 'module' } : {}) }, null, 2),
  );
}
export const pad = (i: number) => String(i).padStart(3, '0');

/** Where each test file writes the wall clock at its first test (read by the leg: runner start to first test). */
export const FIRST_TEST_MARKS = 'first-test.marks';

/**
 * The module every generated test file imports first: its beforeEach, registered before the file's
 * own hooks, writes the wall clock once, when the file's first test begins (after its imports and
 * beforeAll). One line per file; the bench takes the earliest.
 */
export function markModule(runner: 'vitest' | 'jest'): string {
  const where =
    runner === 'vitest'
      ? `import { fileURLToPath } from 'node:url';\nconst MARKS = fileURLToPath(new URL('../${FIRST_TEST_MARKS}', import.meta.url));`
      : `const MARKS = require('node:path').join(__dirname, '..', '${FIRST_TEST_MARKS}');`;
  return `import { appendFileSync } from 'node:fs';
import { beforeEach } from '${runner === 'vitest' ? 'vitest' : '@jest/globals'}';
${where}
let marked = false;
beforeEach(() => {
  if (marked) return;
  marked = true;
  appendFileSync(MARKS, Date.now() + '\\n');
});
`;
}

export function tsJestConfig(dir: string): void {
  put(
    dir,
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'commonjs',
        moduleResolution: 'node10',
        strict: false,
        esModuleInterop: true,
        skipLibCheck: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        types: ['node'],
      },
      include: ['./**/*.ts'],
    }),
  );
}

/** Jest's config as an app has it: ts-jest, node environment, a cache in the project dir. */
export function jestBase(match: string): string {
  return `{ rootDir: __dirname, testEnvironment: 'node', testMatch: ['<rootDir>/${match}'], transform: { '^.+\\\\.ts$': ['ts-jest', { tsconfig: __dirname + '/tsconfig.json' }] }, cacheDirectory: __dirname + '/.jest-cache' }`;
}
