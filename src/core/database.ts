/**
 * The database flow, top to bottom: the names this process gives things (names.ts), a server, the
 * template built once per fingerprint (template.ts), this worker's own clone of it (clone.ts), and
 * the handle over it (handle.ts), whose recreate() swaps in a fresh clone (recreate.ts). What
 * killed processes left in the way is dropped on the way (leftovers.ts).
 */
import type { EngineName, ServerRoles, SqlClient } from '../engines/engine.js';
import { engineFor } from '../engines/index.js';
import { type Context, contextOf } from '../options/context.js';
import { resolveServer } from '../server/providers/index.js';
import { runScopedNote } from '../state.js';
import type { ServerInfo, TestDatabase, TestDatabaseOptions } from '../types.js';
import { logger } from '../util/log.js';
import { withClient } from '../engines/connect.js';
import { cloneInto, nameOfOurOwn } from './clone.js';
import { RUN_SCOPED_NOTE } from './fingerprint.js';
import { Database } from './handle.js';
import { ENTRY, releaseName, resolveNames } from './names.js';
import { type PreparedTemplate, type TemplateInputs, type TemplatePlace, templateOn } from './template.js';
import { leaseTemplate } from './users.js';

const log = logger('database');

/**
 * Starts (or joins) the server the options describe, without creating any database: for scripts
 * and global setups that hand the server on. The server lives while this process does.
 */
export async function startServer(options: TestDatabaseOptions | Context = {}): Promise<ServerInfo> {
  const ctx = contextOf(options, ENTRY);
  const { engine } = resolveNames(ctx);
  return resolveServer(ctx, engine, rolesOf(ctx, engine));
}

/**
 * Starts (or joins) the server and builds the template if no process has yet. Runner global setups
 * call this once per run, so that workers only clone.
 */
export async function prepareTemplate(options: TestDatabaseOptions | Context = {}): Promise<PreparedTemplate> {
  const ctx = contextOf(options, ENTRY);
  const place = await placeOf(ctx);
  return withClient(place.roles.connector, place.server, async (admin) => {
    // The caller hands the template on to processes that clone it later: it is leased for the life
    // of this process, so that `clean` and other runs' eviction leave it (users.ts). One dropped
    // between the check and the lease is built again.
    for (let attempt = 1; ; attempt++) {
      const prepared = await templateOn(admin, place, inputsOf(ctx, place.server));
      if ((await leaseTemplate(place.roles, admin, prepared.template.name, place.names.run)) || attempt === 3) return prepared;
    }
  });
}

/** This process's own database: a server, the template, a clone of it under a name no live run holds. */
export async function openDatabase(options: TestDatabaseOptions | Context = {}): Promise<TestDatabase> {
  const ctx = contextOf(options, ENTRY);
  const place = await placeOf(ctx);
  const { roles, server, names } = place;
  // One admin connection serves the template check (and build) and the clone.
  const { template, seeded, name, runScoped } = await withClient(roles.connector, server, async (admin) => {
    const name = await nameOfOurOwn(roles, admin, names, ctx.options.suffix);
    try {
      return { ...(await cloneTemplate(admin, place, inputsOf(ctx, server), name)), name };
    } catch (e) {
      releaseName(name);
      throw e;
    }
  });
  if (runScoped) noteRunScoped(ctx);
  log('%s ready (template %s%s)', name, template.name, template.built ? ', built now' : '');
  return new Database({ roles, server, name, template, seeded, run: names.run, owner: 'self' });
}

/** The names, the engine's roles and the server of an entry (started or joined). */
async function placeOf(ctx: Context): Promise<TemplatePlace> {
  const names = resolveNames(ctx);
  const roles = rolesOf(ctx, names.engine);
  const server = await resolveServer(ctx, names.engine, roles);
  return { roles: await roles, server, names };
}

const rolesOf = (ctx: Context, engine: EngineName): Promise<ServerRoles> =>
  engineFor(engine).load({ cloneStrategy: ctx.resolved.cloneStrategy });

/** The template (built if missing) cloned into `name`. */
async function cloneTemplate(admin: SqlClient, place: TemplatePlace, inputs: TemplateInputs, name: string): Promise<PreparedTemplate> {
  let prepared = await templateOn(admin, place, inputs);
  const clone = () => cloneInto(admin, { ...place, template: prepared.template.name, name, run: place.names.run });
  await clone().catch(async (e) => {
    // Another run's garbage collection may drop an old template between our check and the clone.
    if ((await place.roles.templates.templateState(admin, prepared.template.name)) !== 'missing') throw e;
    prepared = await templateOn(admin, place, inputs);
    await clone();
  });
  return prepared;
}

/** What the template of an entry is built from, on `server`. */
function inputsOf(ctx: Context, server: ServerInfo): TemplateInputs {
  const { options, resolved } = ctx;
  const unlogged =
    options.unlogged === undefined || options.unlogged === 'auto'
      ? !server.tuned && engineFor(server.engine).tuning.unloggedWhenUntuned
      : options.unlogged;
  return {
    migrate: options.migrate,
    seed: options.seed,
    cacheKey: options.cacheKey,
    migrationFiles: options.migrationFiles,
    unlogged,
    keepTemplates: options.keepTemplates ?? 3,
    migrateTimeoutMs: resolved.migrateTimeoutMs,
    envVars: envVarNames(resolved.envVar),
    appEnv: options.env,
    env: ctx.env,
  };
}

/** The runners' envVar option as names (the runners check them; a migrate command only receives them). */
function envVarNames(value: string | string[] | undefined): string[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : value.split(',');
  return list.map((v) => v.trim()).filter((v) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(v));
}

/**
 * Once per process: a run-scoped template and how to share it across runs. A runner's global setup
 * says it for the runner's template (prepareTemplate prints nothing); a worker gets here only for a
 * template of its own (another schema than the runner's, see runners/shared/compose.ts).
 */
function noteRunScoped(ctx: Context): void {
  if (runScopedNote.shown || ctx.resolved.quiet) return;
  runScopedNote.shown = true;
  process.stderr.write(`${RUN_SCOPED_NOTE}\n`);
}
