/**
 * The real-suite legs read the runners' own account of a run from their output: Vitest's summary
 * (coloured even under FORCE_COLOR=0, which an earlier pattern did not expect) and Jest's --json
 * report. Checked against output captured from Vitest 4.1 and against live runs of the installed
 * Vitest and Jest on a suite with one passing and one failing test, so that a runner's new format
 * fails here rather than leaving the bench's columns empty.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstTestMs, parseJestReport, parseVitest, stripAnsi } from '../../bench/real-suites/parse.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = join(ROOT, 'bench/real-suites/.generated', `parse-${process.pid}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((ok) =>
    execFile(process.execPath, args, { cwd: dir, env: { PATH: process.env.PATH, ...env } }, (_e, stdout, stderr) => ok(stdout + stderr)),
  );
}

function project(): void {
  mkdirSync(join(dir, 'test'), { recursive: true });
  const body = (lib: string) => `import { expect, test } from '${lib}';
test('passes', () => expect(1 + 1).toBe(2));
test('fails', () => expect(1 + 1).toBe(3));
`;
  writeFileSync(join(dir, 'test/a.test.mjs'), body('vitest'));
  writeFileSync(join(dir, 'vitest.config.mjs'), `export default { test: { include: ['test/*.test.mjs'] } };\n`);
  writeFileSync(
    join(dir, 'test/b.jest.cjs'),
    body('@jest/globals').replace(/^import \{ (.*) \} from '(.*)';/, "const { $1 } = require('$2');"),
  );
}

describe('Vitest summary', () => {
  it('reads the coloured summary of Vitest 4.1: counts and the split of its duration', () => {
    const out = readFileSync(join(import.meta.dirname, 'fixtures/vitest-4.1-color.txt'), 'utf8');
    expect(out).toContain('\x1b[');
    const r = parseVitest(out);
    expect(r).toMatchObject({ passed: 4, failed: 0, testsMs: 41 });
    expect(r.breakdown).toEqual({ transform: 138, setup: 0, import: 253, tests: 41, environment: 0 });
  });

  it('reads seconds and a failed count, coloured or not', () => {
    const plain =
      ' Test Files  1 failed | 101 passed (102)\n      Tests  2 failed | 2407 passed (2409)\n   Duration  107.31s (transform 3.20s, setup 1.5s, import 40.12s, tests 12.04s, environment 12ms)\n';
    for (const out of [plain, `\x1b[2m${plain.replace(/\(/g, '\x1b[2m (').replace(/s,/g, 's\x1b[22m,')}`]) {
      const r = parseVitest(out);
      expect(stripAnsi(out)).toContain('Tests');
      expect(r).toMatchObject({ passed: 2407, failed: 2, testsMs: 12_040 });
      expect(r.breakdown).toMatchObject({ transform: 3200, setup: 1500, import: 40_120, environment: 12 });
    }
  });

  it('reads a live run of the installed Vitest, colours on and off', { timeout: 60_000 }, async () => {
    project();
    const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
    for (const env of [{ FORCE_COLOR: '1' }, { NO_COLOR: '1' }]) {
      const r = parseVitest(await run([vitest, 'run', '--config', 'vitest.config.mjs'], env));
      expect(r.passed).toBe(1);
      expect(r.failed).toBe(1);
      expect(Object.keys(r.breakdown ?? {})).toEqual(expect.arrayContaining(['transform', 'import', 'tests']));
      expect(r.testsMs).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('Jest report', () => {
  it('reads a live --json report of the installed Jest: counts, per-test and per-file times', { timeout: 60_000 }, async () => {
    project();
    const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
    const report = join(dir, 'report.json');
    await run([
      jest,
      '--rootDir',
      dir,
      '--testMatch',
      '**/test/*.jest.cjs',
      '--json',
      '--outputFile',
      report,
      '--cacheDirectory',
      join(dir, '.jest'),
    ]);
    const r = parseJestReport(readFileSync(report, 'utf8'));
    expect(r.passed).toBe(1);
    expect(r.failed).toBe(1);
    expect(r.testsMs).toBeGreaterThanOrEqual(0);
    // A file's time holds its tests' and its imports: never less than the tests alone.
    expect(r.filesMs).toBeGreaterThanOrEqual(r.testsMs);
  });
});

describe('first test', () => {
  it('takes the earliest mark of any file, from spawn; none written reads as no figure', () => {
    expect(firstTestMs('1000900\n1000500\n1000700\n', 1000000)).toBe(500);
    expect(firstTestMs('', 1000000)).toBeNaN();
  });
});
