/** The generators' shared pieces: writing a file of a suite, the built package's entries, a CommonJS tsconfig for ts-jest. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST } from '../lib/dist.js';

export function put(dir: string, rel: string, text: string): void {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
}

export const distUrl = (entry: string) => JSON.stringify(pathToFileURL(join(DIST, entry)).href);
export const distPath = (entry: string) => JSON.stringify(join(DIST, entry));
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
