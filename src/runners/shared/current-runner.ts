/**
 * Which test runner this process belongs to, so that a runner entry used under another runner (the
 * Jest setup file under node:test, `fast-test-db/vitest` in a Mocha spec) names the entry of the
 * runner it is really in, instead of advice for a runner the user does not run.
 */
import { FastTestDbError } from '../../errors.js';
import { runnerFromEnv, type RunnerName } from '../../options/workers.js';

export type { RunnerName };

export const RUNNER_LABEL: Record<RunnerName, string> = {
  jest: 'Jest',
  vitest: 'Vitest',
  mocha: 'Mocha',
  'node-test': 'node:test',
  playwright: 'Playwright Test',
};

/** How each runner is wired to fast-test-db: what its entry exports and where it goes. */
export const RUNNER_WIRING: Record<RunnerName, string> = {
  jest: "wrap the Jest config in withFastTestDb(...) from 'fast-test-db/jest' (or list jestFiles() by hand), and take testDatabase from 'fast-test-db/jest'",
  vitest:
    "wrap the Vitest config in withFastTestDb(...) from 'fast-test-db/vitest' (or list vitestFiles() by hand), and take testDatabase from 'fast-test-db/vitest'",
  mocha:
    "load it with mocha --require fast-test-db/mocha (or require: ['fast-test-db/mocha'] in .mocharc), and take testDatabase from 'fast-test-db/mocha'",
  'node-test': "run node --import fast-test-db/node-test --test, and take testDatabase from 'fast-test-db/node-test'",
  playwright:
    "set globalSetup: 'fast-test-db/playwright' in playwright.config, and take fixtures or testDatabase from 'fast-test-db/playwright'",
};

/**
 * The script a runner's own processes run (its CLI, or its worker host), by the package it comes
 * from: a process's own script says more than env vars, which an outer runner's children inherit.
 */
const SCRIPT: [RunnerName, RegExp][] = [
  ['jest', /node_modules[\\/](\.bin[\\/]jest$|jest(-cli|-worker|-runner|-circus)?[\\/]|@jest[\\/])/],
  ['vitest', /node_modules[\\/](\.bin[\\/]vitest$|vitest[\\/]|tinypool[\\/])/],
  ['mocha', /node_modules[\\/](\.bin[\\/]_?mocha$|mocha[\\/]|workerpool[\\/])/],
  ['playwright', /node_modules[\\/](\.bin[\\/]playwright$|playwright(-core)?[\\/]|@playwright[\\/]test[\\/])/],
];

/** The runner this process runs under, or undefined when none is recognised. */
export function currentRunner(
  env: Readonly<NodeJS.ProcessEnv>,
  script: string | undefined = process.argv[1],
  execArgv: readonly string[] = process.execArgv,
): RunnerName | undefined {
  const own = script ? SCRIPT.find(([, re]) => re.test(script)) : undefined;
  if (own) return own[0];
  // node --test runs each file as the process's own script, so no script pattern can say it.
  if (execArgv.some((a) => a === '--test' || a.startsWith('--test='))) return 'node-test';
  return runnerFromEnv(env);
}

/**
 * Refuses the entry of `entry`'s runner in a process of another runner, naming the entry of the
 * runner it is in. Nothing is refused when no runner is recognised (a wrapper script of the user's).
 * `env` is the entry's (its context's).
 */
export function expectRunner(entry: RunnerName, what: string, env: Readonly<NodeJS.ProcessEnv>): void {
  const runner = currentRunner(env);
  if (!runner || runner === entry) return;
  throw new FastTestDbError(
    'BAD_OPTION',
    `${what} is for ${RUNNER_LABEL[entry]}, and this process runs under ${RUNNER_LABEL[runner]}`,
    `use the ${RUNNER_LABEL[runner]} entry instead: ${RUNNER_WIRING[runner]}`,
  );
}
