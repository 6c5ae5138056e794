/**
 * What a runner says about its own run, read back from its output: Vitest's summary lines and Jest's
 * --json report. Kept apart from the legs so that it is tested against real output: Vitest colours
 * its summary even with FORCE_COLOR=0 and puts a colour code between "Duration 1.2s" and its split,
 * which an earlier pattern did not expect and so read every split as empty.
 */

export interface RunnerAccount {
  /** The tests' own time: Vitest's "tests" (summed over files); Jest's per-test durations summed. */
  testsMs: number;
  passed: number;
  failed: number;
  /** Vitest's split of its duration (transform, setup, import, tests, environment, ...), summed over workers. */
  breakdown?: Record<string, number>;
  /** Jest: the per-file times summed (each file's imports, hooks and tests). */
  filesMs?: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is removed.
const ANSI = /\x1b\[[0-9;]*m/g;

const toMs = (n: string, unit: string) => Number(n) * (unit === 's' ? 1000 : 1);

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export function parseVitest(output: string): RunnerAccount {
  const text = stripAnsi(output);
  const split = /^\s*Duration\s+\S+\s+\(([^)]*)\)/m.exec(text)?.[1] ?? '';
  const breakdown = Object.fromEntries([...split.matchAll(/(\w+) (\d+(?:\.\d+)?)(ms|s)\b/g)].map((m) => [m[1]!, toMs(m[2]!, m[3]!)]));
  const tests = /^\s*Tests\s+(.*)$/m.exec(text)?.[1] ?? '';
  return {
    testsMs: breakdown.tests ?? NaN,
    passed: Number(/(\d+) passed/.exec(tests)?.[1] ?? 0),
    failed: Number(/(\d+) failed/.exec(tests)?.[1] ?? 0),
    breakdown,
  };
}

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ startTime: number; endTime: number; assertionResults?: Array<{ duration?: number | null }> }>;
}

export function parseJestReport(json: string): RunnerAccount {
  const j = JSON.parse(json) as JestReport;
  return {
    testsMs: j.testResults.reduce((s, f) => s + (f.assertionResults ?? []).reduce((t, a) => t + (a.duration ?? 0), 0), 0),
    filesMs: j.testResults.reduce((s, f) => s + (f.endTime - f.startTime), 0),
    passed: j.numPassedTests,
    failed: j.numFailedTests,
  };
}

/**
 * Runner start to first test: the earliest wall clock a test file wrote when its first test began
 * (the generated suites' mark file, one line per file), less the wall clock at spawn.
 */
export function firstTestMs(marks: string, spawnedAt: number): number {
  const times = marks
    .split('\n')
    .map(Number)
    .filter((t) => t > 0);
  return times.length ? Math.min(...times) - spawnedAt : NaN;
}
