/**
 * The template cache: the schema after migrations (and the seed's rows), built once per fingerprint
 * under a server-wide lock, marked complete only after `migrate` and `seed` succeeded, cloned for every worker. What it is built
 * from (TemplateInputs) says the two things a template needs: what its fingerprint hashes (the
 * fingerprint names it, names.ts) and how it is migrated.
 */
import type { ServerRoles, SqlClient } from '../engines/engine.js';
import { engineFor } from '../engines/index.js';
import { newMarker } from '../engines/marker.js';
import { pausePoint } from '../util/debug-pause.js';
import { FastTestDbError, messageOf } from '../errors.js';
import { logger } from '../util/log.js';
import { dropLeftoverStaging, dropLeftoverTemplate } from './leftovers.js';
import { markWorthSaving } from '../server/os/warm-cache.js';
import type { Migrate, ServerInfo, TestDatabase } from '../types.js';
import { stepInputs } from './step-inputs.js';
import { hostname } from 'node:os';
import { withClient } from '../engines/connect.js';
import { templateInUse } from './users.js';
import { type AppEnvRole, runMigrate } from './migrate-run.js';
import { closeLeftOpen, noteClients } from './left-open.js';
import { DEFAULT_MIGRATE_TIMEOUT_MS } from '../options/resolve.js';
import { fingerprint, runScope, sourceHash, unverifiable } from './fingerprint.js';
import { ourPrefix, type ResolvedNames, templateName, templatePrefix } from './names.js';

const log = logger('template');

/** What a template is built from: the caller's options, resolved. */
export interface TemplateInputs {
  migrate?: Migrate;
  /** Run after migrate, in the same build. */
  seed?: Migrate;
  cacheKey?: string;
  migrationFiles?: string | string[];
  /** Resolved by the caller ('auto' is the engine's and server's default). */
  unlogged: boolean;
  keepTemplates: number;
  migrateTimeoutMs: number;
  /** Env var names a migrate command finds the template's URL in, besides DATABASE_URL. */
  envVars: readonly string[];
  /** The environment a migrate command runs in (the entry's copy), before the URL's vars are set. */
  env: Readonly<NodeJS.ProcessEnv>;
  /** The app's env names a command or module also finds the template's connection in (the `env` option). */
  appEnv?: Readonly<Record<string, AppEnvRole>>;
}

/** What every database of one fingerprint shares: the server and the template. */
export interface PreparedTemplate {
  server: ServerInfo;
  template: TestDatabase['template'];
  /** Tables with rows in the template; reset() leaves them alone. */
  seeded: string[];
  /** Built from migrate alone, so scoped to this run: the next run builds its own (RUN_SCOPED_NOTE). */
  runScoped: boolean;
}

/** Where a template is wanted: the server and its engine's roles, and the names of the process asking. */
export interface TemplatePlace {
  roles: ServerRoles;
  server: ServerInfo;
  names: ResolvedNames;
}

/** The template of `source` on the place's server, built if missing, through an admin connection the caller holds. */
export async function templateOn(admin: SqlClient, place: TemplatePlace, source: TemplateInputs): Promise<PreparedTemplate> {
  const { roles, server, names } = place;
  const { migrate, seed } = source;
  const scope = unverifiable(source) ? runScope(names.run) : undefined;
  // What a module or command reads is seen without running it; a function's callees are not.
  const [m, s] = [stepInputs(migrate), stepInputs(seed)];
  const inputFiles = [...new Set([...m.files, ...s.files])].sort();
  const scripts = [...m.scripts, ...s.scripts];
  const fp = await fingerprint({
    engine: server.engine,
    flavor: server.flavor,
    serverMajor: server.major,
    cacheKey: source.cacheKey,
    migrationFiles: source.migrationFiles,
    unlogged: source.unlogged,
    migrates: Boolean(migrate),
    migrateSource: scope && typeof migrate === 'function' ? sourceHash(migrate) : undefined,
    migrateCommand: typeof migrate === 'string' ? migrate : undefined,
    migrateModule: typeof migrate === 'object' ? { module: migrate.module, export: migrate.export } : undefined,
    seeds: seed ? true : undefined,
    seedSource: typeof seed === 'function' ? sourceHash(seed) : undefined,
    seedCommand: typeof seed === 'string' ? seed : undefined,
    seedModule: typeof seed === 'object' ? { module: seed.module, export: seed.export } : undefined,
    inputFiles: inputFiles.length ? inputFiles : undefined,
    scripts: scripts.length ? scripts : undefined,
    scope,
  });
  const name = templateName(names.engine, names.prefix, fp);
  const built = await ensureTemplate(admin, {
    roles,
    server,
    name,
    fingerprint: fp,
    prefix: templatePrefix(names.prefix),
    migrate,
    seed,
    migrateTimeoutMs: source.migrateTimeoutMs,
    envVars: source.envVars,
    env: source.env,
    appEnv: source.appEnv,
    unlogged: source.unlogged,
    keepTemplates: source.keepTemplates,
    run: names.run,
    scope,
  });
  const seeded = (await roles.markers.readMarker(admin, name))?.seeded ?? [];
  return { server, template: { name, fingerprint: fp, built }, seeded, runScoped: scope !== undefined };
}

export interface TemplateRequest {
  roles: ServerRoles;
  server: ServerInfo;
  name: string;
  fingerprint: string;
  prefix: string;
  /** The run an unverifiable template (migrate alone) is scoped to, recorded in its marker. */
  scope?: string;
  migrate?: Migrate;
  /** Run after migrate, in the same build and under the same timeout rule (each step its own). */
  seed?: Migrate;
  /** How long `migrate` may take before MIGRATION_TIMEOUT. Default DEFAULT_MIGRATE_TIMEOUT_MS. */
  migrateTimeoutMs?: number;
  /** Env var names a migrate command finds the template's URL in, besides DATABASE_URL. */
  envVars?: readonly string[];
  /** The environment a migrate command runs in (the entry's copy). */
  env: Readonly<NodeJS.ProcessEnv>;
  appEnv?: Readonly<Record<string, AppEnvRole>>;
  unlogged: boolean;
  keepTemplates: number;
  run?: string;
}

/** Returns whether this call built the template. */
export async function ensureTemplate(admin: SqlClient, req: TemplateRequest): Promise<boolean> {
  const { roles, server, name } = req;
  const { templates } = roles;
  if ((await templates.templateState(admin, name)) === 'complete') return false;
  // A second connection holds the lock, so that `admin` stays free for the build's own statements.
  const built = await withClient(roles.connector, server, (lockClient) =>
    withBuildLock(admin, lockClient, req, async () => {
      const state = await templates.templateState(admin, name);
      if (state === 'complete') return false; // another process built it while we waited
      // Builders write the marker before they release the lock, so here an unmarked database is foreign.
      if (state === 'unmarked')
        throw new FastTestDbError(
          'NOT_OURS',
          `a database named ${name} exists and was not created by fast-test-db as a template; it was left untouched`,
          'drop or rename it yourself, or set another prefix (FAST_TEST_DB_PREFIX)',
        );
      if (state === 'incomplete') await dropLeftoverTemplate(roles, admin, name);
      await dropLeftoverStaging(roles, admin, name);
      const started = performance.now();
      await templates.createEmpty(admin, name, newMarker('template', { fingerprint: req.fingerprint, run: req.run, scope: req.scope }));
      if (req.migrate) await migrateInto(admin, req, req.migrate, 'migrate');
      if (req.seed) await migrateInto(admin, req, req.seed, 'seed');
      await pausePoint('template:migrated');
      await templates.completeTemplate(admin, server, name, { unlogged: req.unlogged });
      log('built template %s in %d ms', name, Math.round(performance.now() - started));
      // A migrated template the next run can use (its inputs are known): save the data directory
      // when the server stops. An empty one saves nothing that initdb's cached copy does not give.
      if ((req.migrate || req.seed) && !req.scope && server.owned) markWorthSaving(server.stateDir);
      return true;
    }),
  );
  // Outside the build lock: collecting takes each old template's lock, and two builds holding
  // their own while waiting for the other's would deadlock.
  if (built) await collectOldTemplates(admin, req);
  return built;
}

/**
 * Runs `migrate` into the empty template `req.name` and closes what it left open. A failed migrate
 * drops the template (or leaves it marked incomplete, for the next build to drop) and fails with
 * MIGRATION_FAILED, unless its error is already the library's own.
 */
async function migrateInto(admin: SqlClient, req: TemplateRequest, migrate: Migrate, what: 'migrate' | 'seed'): Promise<void> {
  const { roles, server, name } = req;
  const connection = { host: server.host, port: server.port, user: server.user, password: server.password, database: name };
  const job = { migrate, what, url: engineFor(server.engine).urls.url(server, name), ctx: { database: name, server, connection } };
  let noted: Awaited<ReturnType<typeof noteClients>>['noted'] = [];
  try {
    await pausePoint('template:migrate');
    ({ noted } = await noteClients(() =>
      runMigrate({ ...job, timeoutMs: timeoutOf(req), envVars: req.envVars ?? [], env: req.env, appEnv: req.appEnv }),
    ));
  } catch (e) {
    // Without force: ending the connections a failed migrate left open would make its driver emit
    // an 'error' event nobody listens to, and the runner would die of that instead of reporting e.
    // A template that cannot be dropped stays marked incomplete; the next build drops it.
    const left = await roles.templates.drop(admin, name, {}).then(
      () => '',
      (dropError) => (
        log('kept failed template %s: %s', name, messageOf(dropError)),
        ` (a connection migrate opened is still open: close it in a finally block; ${name} is dropped by the next build)`
      ),
    );
    // An adapter's own error (a missing CLI, a bad option) already says what to do.
    if (e instanceof FastTestDbError) throw e;
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `${what} failed while building template ${name}: ${messageOf(e)}${left}`,
      `fix the ${what === 'seed' ? 'seed' : 'migration'}; nothing was cached, the next run builds the template again`,
      { cause: e },
    );
  }
  await closeLeftOpen(roles, admin, name, noted);
}

const timeoutOf = (req: TemplateRequest) => req.migrateTimeoutMs ?? DEFAULT_MIGRATE_TIMEOUT_MS;

/** How often a process waiting for another's build says so again. */
const WAIT_NOTICE_EVERY_MS = 30_000;

/**
 * Runs `fn` under the template's build lock. A process that finds the lock held says on stderr that
 * it waits, and for whom (the builder's marker, once it wrote one), then again every 30 s: a build
 * that hangs is visible from every process waiting on it, and ends with the builder's migrate timeout.
 */
async function withBuildLock<T>(admin: SqlClient, lockClient: SqlClient, req: TemplateRequest, fn: () => Promise<T>): Promise<T> {
  const { roles, name } = req;
  const { locks } = roles;
  const free = await locks.withFreeLock(lockClient, name, async () => ({ value: await fn() }));
  if (free) return free.value;
  const since = Date.now();
  const notice = async () => {
    const marker = await roles.markers.readMarker(admin, name).catch(() => undefined);
    const who = marker
      ? `process ${marker.pid}${marker.host && marker.host !== hostname() ? ` on ${marker.host}` : ''} has been building it since ${marker.created}`
      : 'another process holds its build lock';
    const waited = Math.round((Date.now() - since) / 1000);
    process.stderr.write(
      `fast-test-db: ${waited ? `still waiting (${waited} s)` : 'waiting'} for template ${name}: ${who} (its migrate times out after ${Math.round(timeoutOf(req) / 1000)} s)\n`,
    );
  };
  await notice();
  const timer = setInterval(() => void notice(), WAIT_NOTICE_EVERY_MS).unref();
  try {
    return await locks.withLock(lockClient, name, fn);
  } finally {
    clearInterval(timer);
  }
}

/** Templates younger than this are never collected: a run that just built one is likely still cloning it. */
const MIN_TEMPLATE_AGE_MS = 10 * 60_000;

/**
 * Keeps the newest `keepTemplates` templates of this prefix; older ones are dropped when nobody uses
 * them: no live lease or clone (users.ts), looked at under the template's own lock, which a run
 * leasing it takes too. One whose lock is held (being leased or rebuilt right now) is left for later.
 */
async function collectOldTemplates(admin: SqlClient, req: TemplateRequest): Promise<void> {
  const { locks, markers } = req.roles;
  const templates = (await markers.listOurs(admin, req.prefix))
    .filter((t) => t.marker.kind === 'template' && t.name !== req.name)
    .sort((a, b) => b.marker.created.localeCompare(a.marker.created));
  const cutoff = Date.now() - MIN_TEMPLATE_AGE_MS;
  const clonesPrefix = ourPrefix(req.prefix.split('_')[0]!);
  for (const old of templates.slice(Math.max(0, req.keepTemplates - 1)).filter((t) => Date.parse(t.marker.created) < cutoff)) {
    const outcome = await locks
      .withFreeLock(admin, old.name, async () => {
        const inUse = await templateInUse(markers, admin, old.name, clonesPrefix);
        if (inUse) return inUse;
        await req.roles.templates.drop(admin, old.name, {});
        return 'dropped';
      })
      .catch((e: unknown) => messageOf(e));
    log('old template %s: %s', old.name, outcome ?? 'its lock is held by another process');
  }
}
