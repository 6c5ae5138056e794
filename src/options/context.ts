/**
 * The context: what one entry (a public function, a runner's setup, the CLI's main, the keeper's
 * main) resolves once and passes down, as postgres.js resolves every option and its env fallback
 * in one function and hands the result on. Below the entry, nothing reads `process.env` and
 * nothing calls the resolver: a leaf takes the context, or the few values of it it needs.
 *
 * How to convert a leaf (for every owner):
 * - An entry builds it: `const ctx = buildContext(options, { where: 'fast-test-db options' })`
 *   (checks the options, reads the env once, copies it). A function that is both public and called
 *   from inside takes either: `const ctx = contextOf(optionsOrContext)`.
 * - Below: take `ctx: Context` (or `Pick<Context, 'resolved' | 'names'>`, or the value itself) as
 *   a parameter; read `ctx.resolved.graceMs` instead of `resolveOptions(options).graceMs`,
 *   `ctx.names.run` instead of `options.runId ?? detectRun()`, `ctx.env.PATH` instead of
 *   `process.env.PATH`, `ctx.credentials.user` instead of `process.env.PGUSER`,
 *   `ctx.handedServers` instead of parsing FAST_TEST_DB_SERVER, `ctx.handoff` instead of
 *   readHandoff(). A child process gets `{ ...ctx.env, ...yours }`.
 * - Changing an option on the way down (the run's id, a suffix): `withOptions(ctx, { runId })`,
 *   which resolves again from the same env copy, not from `process.env`; a worker whose pending
 *   handoff settled: `withHandoff(ctx, settled)`.
 * Only src/options reads the environment (resolve.ts, workers.ts, handoff.ts, here).
 */
import { resolve } from 'node:path';
import type { Handoff, RunnerOptions, ServerInfo, TestDatabaseOptions } from '../types.js';
import { readHandedServers, readHandoff } from './handoff.js';
import { checkEntry, ignoredUrlNote, resolveOptions, type ResolvedOptions } from './resolve.js';
import { ignoredUrlNoted } from '../state.js';
import { settleUntested } from '../util/tested.js';
import { detectRun, detectShard, detectWorker } from './workers.js';

/** The options an entry takes: the core's and the runners'. */
export type EntryOptions = TestDatabaseOptions & RunnerOptions;

/** Who this process is, for the names of what it creates: `<prefix>_<run>_s<shard>_w<worker>`. */
export interface Names {
  prefix: string;
  /** The run: the option, else the run of the runner this process is a worker of, else FAST_TEST_DB_RUN_ID or the CI job's. */
  run: string | undefined;
  shard: string | undefined;
  worker: string;
  /** Which variable said the worker (`FAST_TEST_DB_WORKER`, also for the option; `JEST_WORKER_ID`, …), or 'pid'. */
  workerSource: string;
}

/** What fills in an admin URL that leaves its user or password out: libpq's PGUSER and PGPASSWORD. */
export interface Credentials {
  user: string | undefined;
  password: string | undefined;
}

const CONTEXT = Symbol.for('fast-test-db.context');

export interface Context {
  readonly [CONTEXT]: true;
  /** The options as given (in code, over the config file where the entry reads one): migrate, cacheKey, … */
  readonly options: Readonly<EntryOptions>;
  /** Every option with its env var and default applied (resolve.ts). */
  readonly resolved: ResolvedOptions;
  /**
   * The environment the context was resolved from, copied at the entry: for child processes and
   * for what is not an option (PATH, DEBUG, DOCKER_HOST). Later writes to process.env (a worker's
   * exported DATABASE_URL) are not in it.
   */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  readonly names: Names;
  readonly credentials: Credentials;
  /** What a runner's main process handed this process (FAST_TEST_DB_RUNNER); read when asked for. */
  readonly handoff: Handoff | undefined;
  /** The servers a runner's global setup handed down (FAST_TEST_DB_SERVER); read when asked for. */
  readonly handedServers: readonly ServerInfo[] | undefined;
  /** The project's directory: a runner's root, else the working directory. Config and cache are found from it. */
  readonly cwd: string;
}

export interface BuildContextOptions {
  /** The entry (or config file) that the messages about bad options name. */
  where?: string;
  /** The options come from a config file (which may hold `adapter`). */
  config?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * False in a runner's worker and where a context stands in for options given to an internal
   * function: the options and the env were checked where the run (or the entry) began.
   */
  check?: boolean;
}

/**
 * The context of an entry: `options` checked (unknown keys, bad values of options and env vars,
 * folders we would create things in), then resolved against one copy of `env`.
 */
export function buildContext(options: EntryOptions = {}, build: BuildContextOptions = {}): Context {
  const env = Object.freeze({ ...(build.env ?? process.env) });
  if (build.check !== false) checkEntry(options, build.where ?? 'fast-test-db options', { config: build.config, env });
  const ctx = contextFrom(options, env, resolve(build.cwd ?? process.cwd()));
  // An entry's own options (a checked context) say the run's quiet; one standing in for them does not.
  if (build.check !== false) settleUntested(ctx.resolved.quiet);
  noteIgnoredUrl(ctx);
  return ctx;
}

/**
 * An app's TEST_DATABASE_URL, once read as ours, is not any more: say so once per process where it
 * is set, so that a user who meant that server knows how to ask for it. Workers a runner started are
 * handed their server and stay silent (ignoredUrlNote), so a run says it once, in its main process.
 */
function noteIgnoredUrl(ctx: Context): void {
  if (ignoredUrlNoted.shown || ctx.resolved.quiet) return;
  const note = ignoredUrlNote(ctx.options, ctx.env);
  if (!note) return;
  ignoredUrlNoted.shown = true;
  process.stderr.write(`${note}\n`);
}

export function isContext(value: unknown): value is Context {
  return typeof value === 'object' && value !== null && (value as Partial<Context>)[CONTEXT] === true;
}

/** A context as it is, or the context of options given to a public function. */
export function contextOf(value: EntryOptions | Context | undefined, build: BuildContextOptions = {}): Context {
  return isContext(value) ? value : buildContext(value, build);
}

/** The same entry with some options changed (the run's id, a suffix): resolved again from the same env copy. */
export function withOptions(ctx: Context, changes: EntryOptions): Context {
  return contextFrom({ ...ctx.options, ...changes }, ctx.env, ctx.cwd, (ctx as Internal)[SETTLED]);
}

/**
 * The same entry once the pending handoff it was handed settled (runners/shared/ready.ts): the
 * finished handoff, and its server as the one handed down, which the env copy still has only as
 * an address without a version.
 */
export function withHandoff(ctx: Context, settled: Handoff): Context {
  return contextFrom(ctx.options, ctx.env, ctx.cwd, { handoff: settled, servers: [settled.server] });
}

type Settled = { handoff: Handoff; servers: ServerInfo[] };

/** What a context took from a settled handoff instead of its env copy, so that withOptions keeps it. */
const SETTLED = Symbol('settled handoff');
type Internal = Context & { readonly [SETTLED]?: Settled };

function contextFrom(options: EntryOptions, env: Readonly<NodeJS.ProcessEnv>, cwd: string, settled?: Settled): Context {
  const resolved = resolveOptions(options, env);
  // A worker given as an option counts as FAST_TEST_DB_WORKER does (numbered from 1, cpu-pairing.ts).
  const worker = resolved.worker !== undefined ? { id: resolved.worker, source: 'FAST_TEST_DB_WORKER' } : detectWorker(env);
  let handoff: { value: Handoff | undefined } | undefined = settled && { value: settled.handoff };
  let handed: { value: ServerInfo[] | undefined } | undefined = settled && { value: settled.servers };
  const ctx: Internal = {
    [CONTEXT]: true,
    [SETTLED]: settled,
    options,
    resolved,
    env,
    names: {
      prefix: resolved.prefix,
      run: options.runId ?? detectRun(env),
      shard: resolved.shard ?? detectShard(env),
      worker: worker.id,
      workerSource: worker.source,
    },
    credentials: { user: env.PGUSER, password: env.PGPASSWORD },
    // Read when asked for, as before the context: a bad value is an error only where it is used.
    get handoff() {
      handoff ??= { value: readHandoff(env) };
      return handoff.value;
    },
    get handedServers() {
      handed ??= { value: readHandedServers(env) };
      return handed.value;
    },
    cwd,
  };
  return ctx;
}
