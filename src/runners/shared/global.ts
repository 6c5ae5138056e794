/**
 * The global-setup half shared by every runner: once per run, in the runner's main process, start
 * or join the server, build the template, and hand both to the workers; at the end, drop the run's
 * databases and stop the server if this run started it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pairableCpus } from './cpu-pairing.js';
import { loadConfig, mergeConfig, resolveAdapter } from '../../options/config.js';
import { buildContext, withOptions, type Context, type EntryOptions } from '../../options/context.js';
import type { Engine, ServerRoles, SqlClient } from '../../engines/engine.js';
import { engineFor } from '../../engines/index.js';
import { explainEngineMismatch } from '../../core/engine-mismatch.js';
import { RUN_SCOPED_NOTE } from '../../core/fingerprint.js';
import { FastTestDbError, messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import { ON_PLANNED, releaseOwnedServer, type PlannedListener } from '../../server/registry.js';
import { serversRoot } from '../../server/keeper/dirs.js';
import { prepareTemplate } from '../../core/database.js';
import { resolveNames } from '../../core/names.js';
import type { FastTestDbConfig, ServerInfo } from '../../types.js';
import { runBanner, serverSource, withStatus } from './banner.js';
import { ISOLATIONS, NAME_SLOT, type Handoff, type Isolation } from './handoff.js';
import { RUNNER_ENV, SERVER_ENV } from '../../options/handoff.js';
import { dropOurDatabases } from '../../core/drop.js';
import { withClient } from '../../engines/connect.js';
import { DEFAULT_ENV_VAR } from '../../options/resolve.js';
import { readJson } from '../../server/os/shared-files.js';
import { pidAlive } from '../../server/os/lock.js';
import { liveOtherOwner } from '../../core/users.js';
import { clearReady, failureReported, readyFileOf, writeReady } from './ready.js';
import { stopRun } from './stop-run.js';
import { handedLogin, makeRunLogin } from './login.js';
import { checkLift, workersPhrase } from './serial.js';
import { cloneAhead, giveUpAhead, planAhead } from './clone-ahead.js';
import { standby, type Standby } from './standby.js';

const log = logger('runner');

const STASH = Symbol.for('fast-test-db.runner-options');
const HANDLE = Symbol.for('fast-test-db.run-handle');
type Stash = { [STASH]?: FastTestDbConfig; [HANDLE]?: RunHandle };

/**
 * Options given in a runner config (withFastTestDb) reach the global setup through the process's
 * global object: both run in the runner's main process, and functions such as `migrate` cannot
 * travel through the runner's serialized config.
 */
export function stashOptions(options: FastTestDbConfig): void {
  (globalThis as Stash)[STASH] = options;
}

export function stashedOptions(): FastTestDbConfig {
  return (globalThis as Stash)[STASH] ?? {};
}

/** The handle of the run this process's global setup started, for a teardown loaded as another module. */
export function currentRun(): RunHandle | undefined {
  return (globalThis as Stash)[HANDLE];
}

export interface RunHandle {
  readonly handoff: Handoff;
  /** The env the run's entry read (its context's copy), which the runner's workers start from. */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  /** Drops this run's databases and, unless kept, stops the server this run started. */
  teardown(opts?: { keepServer?: boolean }): Promise<void>;
  /** Drops this run's worker databases so that a watch-mode re-run starts from the template. */
  resetRun(): Promise<void>;
  /** Resolves once the workers' databases cloned ahead are made or given up (never rejects). */
  clonedAhead(): Promise<void>;
}

export interface StartRunOptions {
  /** Where to look for fast-test-db.config.*; default cwd. */
  cwd?: string;
  /**
   * Return as soon as the server's address is known, while it starts and the template is checked
   * (ready.ts): for runners whose workers wait for the outcome before their first clone.
   * 'started': for a server this run starts; 'always': for a running server it joins too, whose
   * template check then runs beside the workers' start. Not where the run wants its handoff whole
   * before it returns (a lone Vitest worker without our setup file, lone-worker.ts).
   */
  early?: 'started' | 'always';
  /**
   * How many workers the runner runs at most, numbered from 1: for the status line (serial.ts), and
   * the databases cloned ahead for them (clone-ahead.ts). Runners without a count leave it out.
   */
  workers?: number;
}

function newRunId(): string {
  // Short: it is part of every worker database name, which engines cap at 63/64 bytes.
  return `r${Date.now().toString(36)}${(process.pid % 1296).toString(36)}`;
}

/** Beside the run's directory (which a watch re-run empties): the pid of the process whose run it is. */
const runOwnerFile = (dir: string) => `${dir}.owner`;

/**
 * `run`, unless another live process on this machine runs under it (two runs in one CI job, a run
 * id set by hand): then a run id of this invocation's own, so that neither touches the other's databases.
 */
function runOfOurOwn(run: string, ctx: Context): string {
  const owner = Number(readJson<number>(runOwnerFile(runDir(run, ctx))));
  if (!owner || owner === process.pid || !pidAlive(owner)) return run;
  const own = `${run}${newRunId()}`;
  log('run %s belongs to process %d, which is still running: this run is %s', run, owner, own);
  return own;
}

function parseIsolation(value: string | undefined): Isolation {
  const v = value ?? 'worker';
  if ((ISOLATIONS as readonly string[]).includes(v)) return v as Isolation;
  throw new FastTestDbError('BAD_OPTION', `unknown isolation "${v}"`, `use one of ${ISOLATIONS.map((i) => `'${i}'`).join(', ')}`);
}

function parseEnvVars(value: string | string[] | undefined): string[] {
  const list = value === undefined ? [DEFAULT_ENV_VAR] : Array.isArray(value) ? value : value.split(',').map((s) => s.trim());
  for (const v of list)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v))
      throw new FastTestDbError(
        'BAD_OPTION',
        `envVar "${v}" is not an environment variable name`,
        "use letters, digits and underscores, e.g. 'DATABASE_URL'",
      );
  if (list.length === 0)
    throw new FastTestDbError('BAD_OPTION', 'envVar is an empty list', "name at least one variable, e.g. 'DATABASE_URL'");
  return list;
}

/** Directory for one run's bookkeeping (which workers already cloned), next to this user's servers. */
export function runDir(run: string, ctx: Context): string {
  return join(serversRoot(ctx), 'runs', run);
}

/**
 * The template for the context's options (built if no process has yet) and what workers of run
 * `run` need: the handoff both the runners' global setups and node:test's standalone children
 * give out. `ctx` carries the run's id already (withOptions(ctx, { runId: run })).
 */
export async function prepareHandoff(
  ctx: Context,
  run: string,
  dir: string,
): Promise<{ handoff: Handoff; roles: ServerRoles; prefix: string; built: boolean; runScoped: boolean }> {
  const names = resolveNames(ctx);
  const prepared = await prepareTemplate(ctx).catch((e: unknown) => {
    throw explainEngineMismatch(e, names.engine);
  });
  const engine = engineFor(names.engine);
  const roles = await engine.load({ cloneStrategy: ctx.resolved.cloneStrategy });
  await makeRunLogin(ctx, roles, prepared.server, prepared.template.name, run);
  const handoff = handoffFor({ ctx, run, dir, engine, server: prepared.server, template: prepared.template, seeded: prepared.seeded });
  return { handoff, roles, prefix: names.prefix, built: prepared.template.built, runScoped: prepared.runScoped };
}

interface HandoffParts {
  ctx: Context;
  run: string;
  dir: string;
  engine: Engine;
  server: ServerInfo;
  template: { name: string; fingerprint: string };
  seeded: string[];
}

function handoffFor({ ctx, run, dir, engine, server, template, seeded }: HandoffParts): Handoff {
  return {
    v: 1,
    run,
    engine: engine.name,
    prefix: ctx.names.prefix,
    shard: ctx.names.shard,
    server,
    template: template.name,
    fingerprint: template.fingerprint,
    seeded,
    isolation: parseIsolation(ctx.resolved.isolation),
    envVars: parseEnvVars(ctx.resolved.envVar),
    appEnv: ctx.options.env,
    login: handedLogin(ctx),
    urlPattern: engine.urls.url({ ...server, ...handedLogin(ctx) }, NAME_SLOT),
    main: process.pid,
    dir,
    cpus: pairableCpus(ctx),
    cloneStrategy: ctx.resolved.cloneStrategy,
  };
}

/**
 * Only a server of the registry (one this run starts, or one of this project's it joins) can be
 * announced before the run's handoff is whole; FAST_TEST_DB_EARLY=0 turns it off.
 */
function mayStartEarly(ctx: Context, handed: boolean): boolean {
  const { resolved } = ctx;
  if (handed || resolved.url || !resolved.early) return false;
  return resolved.server === 'auto' || resolved.server === 'embedded';
}

/**
 * The runners' entry in their main process: the config file, the runner config's options and
 * `explicit` make the run's one context, from which the server, the template and the handoff come.
 */
export async function startRun(explicit: FastTestDbConfig = {}, how: StartRunOptions = {}): Promise<RunHandle> {
  const merged = await resolveAdapter(mergeConfig(await loadConfig(how.cwd), mergeConfig(stashedOptions(), explicit)));
  const entry = buildContext(merged, { where: 'the runner options' });
  checkLift(merged, entry.env);
  // Fixed for the life of this process, so that watch-mode re-runs keep their names. The workers
  // learn it from the handoff (detectRun reads it there), not from an env var of its own.
  const given = entry.names.run;
  const run = runOfOurOwn(given ?? newRunId(), entry);
  // Only a run id given to this process (a CI job's, a watch re-run's, one set by hand) can have
  // databases on the server already: a new one has none to drop before its workers start.
  const dropFirst = async (p: { roles: ServerRoles; handoff: Handoff; prefix: string }) => {
    if (run === given) await dropRunDatabases(p.roles, p.handoff.server, p.prefix, run);
  };
  const ctx = withOptions(entry, { runId: run });
  const handed = Boolean(ctx.env[SERVER_ENV]);

  const started = performance.now();
  const dir = runDir(run, ctx);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(runOwnerFile(dir), String(process.pid));
  const { quiet, reuse } = ctx.resolved;
  const source = serverSource(ctx, handed);
  const banner = (p: Awaited<ReturnType<typeof prepareHandoff>>) =>
    runBanner(p.handoff.server, {
      source,
      template: p.handoff.template,
      built: p.built,
      keptMs: reuse && !handed && p.handoff.server.owned && p.handoff.server.stateDir ? ctx.resolved.idleTimeoutMs : undefined,
      workers: how.workers === undefined ? undefined : workersPhrase(how.workers),
    });
  // After the status line, every run: a template from migrate alone is never reused (fingerprint.ts).
  const noteScoped = (p: Awaited<ReturnType<typeof prepareHandoff>>) => {
    if (!quiet && p.runScoped) process.stderr.write(`${RUN_SCOPED_NOTE}\n`);
  };
  const readyFile = readyFileOf(dir);
  clearReady(readyFile);

  let announce: PlannedListener | undefined;
  const planned =
    how.early && mayStartEarly(ctx, handed)
      ? new Promise<ServerInfo>((res) => {
          announce = (server, joined) => {
            if (!joined || how.early === 'always') res(server);
          };
        })
      : undefined;
  const work = prepareHandoff(announce ? withOptions(ctx, { [ON_PLANNED]: announce } as EntryOptions) : ctx, run, dir);
  // Whichever comes first: the address the registry announced (how.early says for which servers), or all of it.
  const expected = planned ? await Promise.race([work.then(() => undefined), planned]) : undefined;

  let handoff: Handoff;
  /** The workers' databases being cloned ahead; awaited before the run's databases are dropped. */
  let ahead: Promise<void> = Promise.resolve();
  /** The connection the run's end drops its databases on, opened once the clones ahead are done. */
  let held: Standby | undefined;
  /** The finished handoff, or the failure that the workers were told about. */
  let outcome: Promise<{ handoff: Handoff; roles: ServerRoles; prefix: string } | { error: unknown }>;
  if (expected) {
    // Planned after the engine's roles loaded (a missing driver fails before a server is planned).
    handoff = {
      ...handoffFor({
        ctx,
        run,
        dir,
        engine: engineFor(expected.engine),
        server: expected,
        template: { name: '', fingerprint: '' },
        seeded: [],
      }),
      pending: readyFile,
      owner: process.pid,
    };
    const aheadNames = planAhead(handoff, how.workers);
    outcome = work
      .then(async (p) => {
        await dropFirst(p);
        ahead = cloneAhead(p.handoff, aheadNames);
        held = standby(p.roles.connector, p.handoff.server, ahead);
        // Workers started from now on (a watch re-run's) need not wait for the ready file.
        handDown(p.handoff);
        writeReady(readyFile, { handoff: p.handoff });
        if (!quiet) process.stderr.write(banner(p) + '\n');
        noteScoped(p);
        log(
          'run %s: template %s%s ready in %d ms (handed out early); isolation %s',
          run,
          p.handoff.template,
          p.built ? ' (built)' : '',
          Math.round(performance.now() - started),
          p.handoff.isolation,
        );
        return p;
      })
      .catch((e: unknown) => {
        log('run %s: the server or template failed after the handoff: %s', run, messageOf(e));
        giveUpAhead(handoff, aheadNames);
        // Once, here, rather than in every test file (stop-run.ts).
        return stopRun(readyFile, e, async () => {
          const { owned, stateDir } = handoff.server;
          if (!handed && owned && stateDir !== undefined && !reuse) await releaseServer(stateDir);
        });
      });
  } else {
    const p = await withStatus({
      quiet,
      label: 'fast-test-db: starting the server and the template',
      work: () => work,
      done: banner,
      env: ctx.env,
    });
    noteScoped(p);
    // A watch-mode re-run of a global setup finds the last run's databases: start from the template.
    await dropFirst(p);
    handoff = p.handoff;
    ahead = cloneAhead(handoff, planAhead(handoff, how.workers));
    held = standby(p.roles.connector, handoff.server, ahead);
    outcome = Promise.resolve(p);
    log(
      'run %s: template %s%s ready in %d ms; isolation %s',
      run,
      handoff.template,
      p.built ? ' (built)' : '',
      Math.round(performance.now() - started),
      handoff.isolation,
    );
  }
  const { server } = handoff;
  handDown(handoff);

  // We stop only a server that this process started or joined through the registry.
  const stoppable = !handed && server.owned && server.stateDir !== undefined;
  const handle: RunHandle = {
    handoff,
    env: ctx.env,
    clonedAhead: async () => {
      await outcome;
      await ahead;
    },
    resetRun: async () => {
      const done = await outcome;
      if ('error' in done) return;
      await ahead;
      await dropRunDatabases(done.roles, done.handoff.server, done.prefix, run, held);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      ahead = cloneAhead(done.handoff, planAhead(done.handoff, how.workers));
    },
    teardown: async ({ keepServer = false } = {}) => {
      let failure: unknown;
      const done = await outcome;
      if ('error' in done) {
        // Workers that needed the database showed it; a run where none did still fails, once, here.
        if (!failureReported(readyFile)) failure = done.error;
      } else {
        try {
          await ahead;
          await dropRunDatabases(done.roles, done.handoff.server, done.prefix, run, held);
        } catch (e) {
          failure = e;
        }
        await held?.close();
      }
      rmSync(dir, { recursive: true, force: true });
      rmSync(runOwnerFile(dir), { force: true });
      clearReady(readyFile);
      if ((globalThis as Stash)[HANDLE] === handle) delete (globalThis as Stash)[HANDLE];
      if (!keepServer) {
        delete process.env[RUNNER_ENV];
        if (stoppable) delete process.env[SERVER_ENV];
        if (stoppable && !reuse) await releaseServer(server.stateDir!);
      }
      if (failure) throw failure;
    },
  };
  (globalThis as Stash)[HANDLE] = handle;
  return handle;
}

/**
 * The runner's workers (Jest's and Mocha's worker processes, node:test's children, Vitest's forks
 * and threads) start after this and inherit this process's environment: it is the one channel
 * Jest's global setup has to them, and the one an adapter or createTestDatabase() in any runner's
 * worker reads without loading that runner. The handoff carries the run's id too.
 */
function handDown(handoff: Handoff): void {
  process.env[RUNNER_ENV] = JSON.stringify(handoff);
  process.env[SERVER_ENV] = JSON.stringify([handoff.server]);
}

/** Every database this run created (marker says so), whatever worker or file it belonged to; on `held`'s connection if given. */
async function dropRunDatabases(
  roles: Pick<ServerRoles, 'connector' | 'markers' | 'templates'>,
  server: ServerInfo,
  prefix: string,
  run: string,
  held?: Standby,
): Promise<string[]> {
  const drop = (admin: SqlClient) =>
    dropOurDatabases(roles, admin, `${prefix}_`, (marker) => marker.run === run && liveOtherOwner(marker) === undefined);
  const dropped = await (held ? held.run(drop) : withClient(roles.connector, server, drop));
  if (dropped.length) log('dropped %d database(s) of run %s', dropped.length, run);
  return dropped;
}

async function releaseServer(stateDir: string): Promise<void> {
  try {
    log('server in %s: %s', stateDir, await releaseOwnedServer(stateDir));
  } catch (e) {
    log('could not stop the server in %s: %s (the keeper stops it when this process exits)', stateDir, messageOf(e));
  }
}
