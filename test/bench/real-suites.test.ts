/**
 * The real-suites section end to end in quick mode, as `npm run bench -- --quick --sections
 * real-suites` runs it, on the import-heavy shape at 3 files: the generated suite runs on our major's
 * default server (A2) and on fast-test-db (B0, B1, B, C), every test passing, and the JSON holds the
 * three figures per leg (whole run, runner start to first test, the tests' own time with Vitest's
 * split). Leg A (the machine's service) is left out: it is a server this repository does not own.
 * Timings are not asserted: the bench's job is to measure them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'ftdb-rs-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Row {
  id: string;
  samples: number[];
  median: number;
  meta: { passed: number[]; failedRuns: number; breakdown?: Array<Record<string, number>> };
}

it('runs the real-suites section in quick mode on one small shape and writes every leg figure', { timeout: 300_000 }, async () => {
  const r = await new Promise<{ code: number; output: string }>((ok) =>
    execFile(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'bench/run.ts'),
        '--quick',
        '--sections',
        'real-suites',
        '--shapes',
        'imports',
        '--legs',
        'A2,B0,B1,B,C',
        '--name',
        'rs',
        '--out',
        out,
      ],
      { cwd: ROOT, maxBuffer: 32 * 1024 * 1024, timeout: 280_000 },
      (err, stdout, stderr) => ok({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    ),
  );
  expect(r.output).not.toMatch(/bench failed/);
  expect(r.code).toBe(0);
  const file = readdirSync(out).find((f) => f.endsWith('-rs.json'));
  expect(file).toBeDefined();
  const json = JSON.parse(readFileSync(join(out, file!), 'utf8')) as { sections: Array<{ id: string; baseline: string; rows: Row[] }> };
  const byId = Object.fromEntries(json.sections.map((s) => [s.id, s]));
  expect(Object.keys(byId)).toEqual(['real-suites-imports', 'real-suites-imports-first-test', 'real-suites-imports-tests']);
  const whole = byId['real-suites-imports']!;
  expect(whole.baseline).toBe('A2');
  expect(whole.rows.map((x) => x.id)).toEqual(['A2', 'B0', 'B1', 'B', 'C']);
  for (const row of whole.rows) {
    // 3 files x 2 tests, all passing, on every leg.
    expect(row.meta.passed).toEqual([6]);
    expect(row.meta.failedRuns).toBe(0);
    expect(Object.keys(row.meta.breakdown![0]!)).toEqual(expect.arrayContaining(['import', 'tests']));
  }
  for (const [i, row] of byId['real-suites-imports-first-test']!.rows.entries()) {
    // The first test begins after the runner starts and before it exits.
    expect(row.median).toBeGreaterThan(0);
    expect(row.median).toBeLessThan(whole.rows[i]!.median);
  }
  for (const row of byId['real-suites-imports-tests']!.rows) expect(row.median).toBeGreaterThanOrEqual(0);
});
