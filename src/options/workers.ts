/**
 * Which worker, run and shard this process is, from the test runners' and CI systems' env vars.
 * These values end up in database names, always through databaseName() and the quoting helper.
 */
import { readHandoff } from './handoff.js';

export const WORKER_ENV_VARS = [
  'FAST_TEST_DB_WORKER',
  'JEST_WORKER_ID',
  'VITEST_POOL_ID',
  'NODE_TEST_WORKER_ID',
  'MOCHA_WORKER_ID',
  'TEST_PARALLEL_INDEX',
  'TEST_TOKEN',
] as const;

/**
 * The runners whose worker number says which CPU is the worker's (cpu-pairing.ts), and the number
 * their first worker has: Mocha counts from 0. Playwright's workers (TEST_PARALLEL_INDEX) drive
 * browsers, which would inherit the one CPU, so they have none.
 */
export const NUMBERED_FROM: Partial<Record<(typeof WORKER_ENV_VARS)[number], 0 | 1>> = {
  FAST_TEST_DB_WORKER: 1,
  JEST_WORKER_ID: 1,
  VITEST_POOL_ID: 1,
  NODE_TEST_WORKER_ID: 1,
  MOCHA_WORKER_ID: 0,
};

export function detectWorker(env: NodeJS.ProcessEnv = process.env): { id: string; source: string } {
  for (const name of WORKER_ENV_VARS) {
    const value = env[name];
    if (value !== undefined && value !== '') return { id: value, source: name };
  }
  return { id: `p${process.pid}`, source: 'pid' };
}

/**
 * The worker id a process will detect that starts from `env` (an entry's copy, ctx.env) with `name`
 * set to `value`, as a runner sets its own variable in its workers: another variable in `env` may outrank it.
 */
export function workerIdGiven(name: (typeof WORKER_ENV_VARS)[number], value: string, env: Readonly<NodeJS.ProcessEnv>): string {
  return detectWorker({ ...env, [name]: value }).id;
}

/**
 * The run this process belongs to: in a runner's worker (or its main process, once the run
 * started) the runner's run, which the worker sees in the handoff; else FAST_TEST_DB_RUN_ID, else
 * a CI job's identity, so that many jobs sharing one external server never collide.
 */
export function detectRun(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const handed = readHandoff(env)?.run;
  if (handed) return handed;
  if (env.FAST_TEST_DB_RUN_ID) return env.FAST_TEST_DB_RUN_ID;
  if (env.GITHUB_RUN_ID) return `gh${env.GITHUB_RUN_ID}a${env.GITHUB_RUN_ATTEMPT ?? '1'}`;
  if (env.CI_JOB_ID) return `gl${env.CI_JOB_ID}`;
  if (env.BUILDKITE_JOB_ID) return `bk${env.BUILDKITE_JOB_ID}`;
  if (env.CIRCLE_WORKFLOW_JOB_ID) return `cc${env.CIRCLE_WORKFLOW_JOB_ID}`;
  return undefined;
}

/**
 * Whether this process runs on a CI machine: the `CI` variable that GitHub Actions, GitLab, CircleCI,
 * Buildkite, Travis and most others set, or the job variables detectRun reads. A server kept for the
 * next run (reuse) is for a developer's edit-run loop; a CI job has no next run.
 */
export function onCi(env: Readonly<NodeJS.ProcessEnv> = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  if (ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false') return true;
  return Boolean(env.GITHUB_ACTIONS || env.GITLAB_CI || env.BUILDKITE || env.CIRCLECI || env.TF_BUILD || env.JENKINS_URL);
}

export function detectShard(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.FAST_TEST_DB_SHARD || env.CI_NODE_INDEX || env.CIRCLE_NODE_INDEX || env.BUILDKITE_PARALLEL_JOB || undefined;
}

export type RunnerName = 'jest' | 'vitest' | 'mocha' | 'node-test' | 'playwright';

/** Env vars only a runner's processes carry, for processes whose script says nothing (threads, loaders). */
const RUNNER_ENV_VARS: [RunnerName, string][] = [
  ['node-test', 'NODE_TEST_CONTEXT'],
  ['jest', 'JEST_WORKER_ID'],
  ['vitest', 'VITEST_POOL_ID'],
  ['vitest', 'VITEST_WORKER_ID'],
  ['playwright', 'TEST_WORKER_INDEX'],
  ['mocha', 'MOCHA_WORKER_ID'],
];

/** The runner whose env vars this process carries, or undefined. */
export function runnerFromEnv(env: Readonly<NodeJS.ProcessEnv>): RunnerName | undefined {
  return RUNNER_ENV_VARS.find(([runner, name]) => env[name] !== undefined && (env[name] !== '' || runner === 'node-test'))?.[0];
}

/**
 * What a runner's setup file reads of its process's env, read here: the env itself (under Jest,
 * the test file's own copy, which is where the URL must be exported) and this worker's id.
 */
export function setupFileEnv(): { env: NodeJS.ProcessEnv; worker: string } {
  const env = process.env;
  return { env, worker: detectWorker(env).id };
}
