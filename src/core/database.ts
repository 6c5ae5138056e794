/** createTestDatabase(): a server, a template built once, and this worker's own clone of it. */
import type { Dialect, SqlClient } from '../engines/dialect.js';
import { newMarker, ownerGone } from '../engines/dialect.js';
import { dialectFor } from '../engines/index.js';
import { FastTestDbError, messageOf } from '../errors.js';
import { driverErrorKind } from '../engines/errors.js';
import { fingerprint, RUN_SCOPED_NOTE, runScope, sourceHash, unverifiable } from './fingerprint.js';
import { logger } from '../util/log.js';
import { databaseName } from '../engines/quote.js';
import { pidAlive } from '../server/os/lock.js';
import { keeperFiles, readJson, type KeeperStatus } from '../server/keeper/files.js';
import { backendsServing } from '../server/os/processes.js';
import { recreateDatabase, releaseSpare } from './recreate.js';
import { resolveServer } from '../server/providers/index.js';
import { engineOfUrl } from '../server/providers/url.js';
import { clearStaging, sharedWorkerId } from './staging.js';
import { ensureTemplate } from './template.js';
import type { ConnectionOptions, Engine, ResetReport, ServerInfo, TestDatabase, TestDatabaseOptions } from '../types.js';
import { detectRun, detectShard, detectWorker } from '../options/workers.js';
import { sleep } from '../util/sleep.js';
import { withClient } from './client.js';
import { heldByOther, leaseTemplate, liveOtherOwner } from './users.js';
import { checkEntry, resolveOptions } from '../options/resolve.js';
import { heldNames, runScopedNote } from '../state.js';

const log = logger('database');

export interface ResolvedNames {
  engine: Engine;
  prefix: string;
  run?: string;
  shard?: string;
  worker: string;
}

/** Options, then env vars, then defaults: who this process is and what it names things. */
export function resolveNames(options: TestDatabaseOptions): ResolvedNames {
  const resolved = checkEntry(options, 'fast-test-db options');
  const url = resolved.url;
  const ofUrl = url ? engineOfUrl(url) : undefined;
  const engine = resolved.engine ?? ofUrl ?? 'postgres';
  if (ofUrl && ofUrl !== engine)
    throw new FastTestDbError(
      'BAD_OPTION',
      `the engine is '${engine}' (${options.engine ? 'the engine option' : 'FAST_TEST_DB_ENGINE'}), but the URL${options.url ? '' : ' in TEST_DATABASE_URL'} is a ${ofUrl} URL`,
      `leave the engine out (it follows the URL's scheme), or give a ${engine === 'postgres' ? 'postgres://' : 'mysql://'} URL`,
    );
  const prefix = resolved.prefix;
  if (!/^[a-z][a-z0-9]{0,15}$/.test(prefix))
    throw new FastTestDbError(
      'BAD_OPTION',
      `prefix "${prefix}" is not 1-16 lowercase letters and digits`,
      "use something like 'ftdb' or 'myapp'",
    );
  return {
    engine,
    prefix,
    run: options.runId ?? detectRun(),
    shard: options.shard ?? detectShard(),
    worker: options.worker ?? detectWorker().id,
  };
}

export function workerDatabaseName(dialect: Pick<Dialect, 'engine'>, names: ResolvedNames, suffix?: string): string {
  return databaseName(dialect.engine, [names.prefix, names.run, names.shard && `s${names.shard}`, `w${names.worker}`, suffix]);
}

/**
 * Starts (or joins) the server the options describe, without creating any database: for scripts
 * and global setups that hand the server on. The server lives while this process does.
 */
export async function startServer(options: TestDatabaseOptions = {}): Promise<ServerInfo> {
  const { engine } = resolveNames(options);
  await dialectFor(engine); // a missing driver is PEER_MISSING before a server starts
  return resolveServer(options, engine);
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

/**
 * Starts (or joins) the server and builds the template if no process has yet. Runner global setups
 * call this once per run, so that workers only clone.
 */
export async function prepareTemplate(options: TestDatabaseOptions = {}): Promise<PreparedTemplate> {
  const names = resolveNames(options);
  const dialect = await dialectFor(names.engine);
  const server = await resolveServer(options, names.engine);
  return withClient(dialect, server, async (admin) => {
    // The caller hands the template on to processes that clone it later: it is leased for the life
    // of this process, so that `clean` and other runs' eviction leave it (src/users.ts). One
    // dropped between the check and the lease is built again.
    for (let attempt = 1; ; attempt++) {
      const prepared = await templateOn(admin, dialect, server, names, options);
      if ((await leaseTemplate(dialect, admin, prepared.template.name, names.run)) || attempt === 3) return prepared;
    }
  });
}

/** The template of `options` on `server`, built if missing, through an admin connection the caller holds. */
async function templateOn(
  admin: SqlClient,
  dialect: Dialect,
  server: ServerInfo,
  names: ResolvedNames,
  options: TestDatabaseOptions,
): Promise<PreparedTemplate> {
  const unlogged =
    options.unlogged === undefined || options.unlogged === 'auto' ? !server.tuned && server.engine === 'postgres' : options.unlogged;
  const { migrate } = options;
  if (typeof migrate === 'string' && options.migrationFiles === undefined && options.cacheKey === undefined)
    throw new FastTestDbError(
      'BAD_OPTION',
      `migrate is a command ("${migrate}"): fast-test-db cannot see what it reads, so it cannot tell when the template is out of date`,
      "list the files it reads in migrationFiles, e.g. migrationFiles: 'migrations/**' (or pass a cacheKey that changes with them)",
    );
  const scope = unverifiable(options) ? runScope(names.run) : undefined;
  const fp = await fingerprint({
    engine: server.engine,
    flavor: server.flavor,
    serverMajor: server.major,
    cacheKey: options.cacheKey,
    migrationFiles: options.migrationFiles,
    unlogged,
    migrates: Boolean(migrate),
    migrateSource: scope && typeof migrate === 'function' ? sourceHash(migrate) : undefined,
    migrateCommand: typeof migrate === 'string' ? migrate : undefined,
    scope,
  });
  const name = databaseName(dialect.engine, [names.prefix, 'tpl', fp]);
  const built = await ensureTemplate(admin, {
    dialect,
    server,
    name,
    fingerprint: fp,
    prefix: `${names.prefix}_tpl_`,
    migrate,
    migrateTimeoutMs: resolveOptions(options).migrateTimeoutMs,
    envVars: envVarNames(resolveOptions(options).envVar),
    unlogged,
    keepTemplates: options.keepTemplates ?? 3,
    run: names.run,
    scope,
  });
  const seeded = (await dialect.readMarker(admin, name))?.seeded ?? [];
  return { server, template: { name, fingerprint: fp, built }, seeded, runScoped: scope !== undefined };
}

/** The runners' envVar option as names (the runners check them; a migrate command only receives them). */
function envVarNames(value: string | string[] | undefined): string[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value : value.split(',');
  return list.map((v) => v.trim()).filter((v) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(v));
}

/**
 * Once per process: a run-scoped template and how to share it across runs. A runner's global setup
 * says it for the runner's template (prepareTemplate prints nothing); a worker gets here only for a
 * template of its own (another schema than the runner's, see runners/compose.ts).
 */
function noteRunScoped(options: TestDatabaseOptions): void {
  if (runScopedNote.shown || resolveOptions(options).quiet) return;
  runScopedNote.shown = true;
  process.stderr.write(`${RUN_SCOPED_NOTE}\n`);
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const names = resolveNames(options);
  const dialect = await dialectFor(names.engine);
  const server = await resolveServer(options, names.engine);
  // One admin connection serves the template check (and build) and the clone.
  const { template, seeded, name, runScoped } = await withClient(dialect, server, async (admin) => {
    const name = await nameOfOurOwn(dialect, admin, names, options.suffix);
    try {
      let prepared = await templateOn(admin, dialect, server, names, options);
      await cloneInto(dialect, admin, server, prepared.template.name, name, names.run).catch(async (e) => {
        // Another run's garbage collection may drop an old template between our check and the clone.
        if ((await dialect.templateState(admin, prepared.template.name)) !== 'missing') throw e;
        prepared = await templateOn(admin, dialect, server, names, options);
        await cloneInto(dialect, admin, server, prepared.template.name, name, names.run);
      });
      return { ...prepared, name };
    } catch (e) {
      heldNames.delete(name);
      throw e;
    }
  });
  if (runScoped) noteRunScoped(options);
  log('%s ready (template %s%s)', name, template.name, template.built ? ', built now' : '');
  return new Database({ dialect, server, name, template, seeded, run: names.run, owner: 'self' });
}

/**
 * Without a runner every handle of a process defaults to the same worker name (`…_wp<pid>`): a
 * second handle (typeormTestDb beside drizzleTestDb) takes the next free `h<n>` suffix instead of
 * dropping the first's database (state.ts, heldNames).
 * The first name of `names` (plain, then with `h2`, `h3`, …) no open handle of this process holds; reserved for the caller. */
function unheldName(dialect: Dialect, names: ResolvedNames, suffix?: string): string {
  let name = workerDatabaseName(dialect, names, suffix);
  for (let n = 2; heldNames.has(name); n++) name = workerDatabaseName(dialect, names, `${suffix ?? ''}h${n}`);
  heldNames.add(name);
  return name;
}

/**
 * This worker's name, or, while another live run holds it (a second terminal running the same
 * suite without a runner, or with the same CI run id), a name of this process's own. Reserved in
 * `heldNames` until the handle closes (the caller releases it if no handle is made).
 */
async function nameOfOurOwn(dialect: Dialect, admin: SqlClient, names: ResolvedNames, suffix?: string): Promise<string> {
  const name = unheldName(dialect, names, suffix);
  const marker = await dialect.readMarker(admin, name).catch((e: unknown) => {
    heldNames.delete(name);
    throw e;
  });
  const owner = marker ? liveOtherOwner(marker) : undefined;
  if (owner === undefined) return name;
  heldNames.delete(name);
  const own = unheldName(dialect, { ...names, run: `${names.run ?? ''}p${process.pid.toString(36)}` }, suffix);
  log('%s belongs to process %d, which is still running: this process uses %s', name, owner, own);
  // Names of a process's own are never taken again by name: what killed processes left under
  // them (same run, its process gone from this machine) is dropped here instead.
  const leftovers = await dialect.listOurs(admin, `${names.prefix}_`).catch((e: unknown) => {
    heldNames.delete(own);
    throw e;
  });
  for (const left of leftovers) {
    const m = left.marker;
    if (m.kind !== 'database' || m.run !== names.run || left.name === own) continue;
    if (!ownerGone({ host: m.host, pid: m.invocation ?? m.pid }, pidAlive) || !ownerGone(m, pidAlive)) continue;
    log('dropping %s, left by process %d', left.name, m.pid);
    await dialect.drop(admin, left.name, { force: true }).catch((e: unknown) => log('kept %s: %s', left.name, messageOf(e)));
  }
  return own;
}

/**
 * Clones `template` into `name`, replacing whatever we left under that name before (a crashed run,
 * a previous test file), never a database that is not ours. With `force`, connections still open
 * to our leftover are ended first.
 */
export async function cloneInto<C extends SqlClient>(
  dialect: Dialect<C>,
  admin: C,
  server: ServerInfo,
  template: string,
  name: string,
  run?: string,
  force = false,
): Promise<void> {
  let existing = await dialect.readMarker(admin, name);
  if (existing === null) {
    // A database is created before its marker is written: look again before calling it foreign.
    await sleep(300);
    existing = await dialect.readMarker(admin, name);
    if (existing) throw sharedWorkerId(name);
  }
  if (existing === null)
    throw new FastTestDbError(
      'NOT_OURS',
      `a database named ${name} already exists and was not created by fast-test-db; it was left untouched`,
      'set another prefix (FAST_TEST_DB_PREFIX) or worker id, or remove that database yourself',
    );
  if (existing) {
    // Another live run's database is never dropped, whatever `force` says.
    const owner = liveOtherOwner(existing);
    if (owner !== undefined) throw heldByOther(name, existing, owner);
    // What a killed process left has no live connection worth sparing (a dead MySQL client's clone
    // script may still be running on the server: it is ended too).
    await dialect.drop(admin, name, { force: force || ownerGone(existing, pidAlive) });
  }
  const attempt = () =>
    dialect.clone(admin, server, template, name, newMarker('database', { run, template })).catch((e) => {
      throw driverErrorKind(e) === 'database-exists' ? sharedWorkerId(name) : e;
    });
  // A leftover under the staging name (a clone killed before its rename) is looked for only when
  // the clone fails, so that the common case pays nothing for it.
  await attempt().catch(async (e) => {
    if (!(await clearStaging(dialect, admin, name))) throw e;
    await attempt();
  });
  if (!server.owned) await dialect.tuneDatabase(admin, name);
}

/** What a Database handle is made of; the runners build one from their handoff. */
export interface DatabaseSpec {
  dialect: Dialect;
  server: ServerInfo;
  name: string;
  /** Default: the dialect's URL for `name`. */
  url?: string;
  template: TestDatabase['template'];
  /** Tables with rows in the template; reset() refills them when a test changed them. */
  seeded: string[];
  run?: string;
  /**
   * 'self': the handle's own database, dropped when the handle is disposed. 'runner': the
   * runner's worker database, shared by the worker's files and dropped by the runner at the end
   * of the run; disposing the handle only closes it, and recreate() ends connections a previous
   * file left open.
   */
  owner: 'self' | 'runner';
  /** After recreate() cloned the database again (a runner notes that this run has it). */
  onCloned?: () => void;
  /** After destroy() dropped it (a runner forgets its note, so that the next file clones again). */
  onDropped?: () => void;
}

/**
 * The one TestDatabase implementation, with the connection that reset() keeps and the one to the
 * server's admin database that recreate() keeps (a new connection is a new server process, which
 * took 5-20 ms here: most of a recreate that swaps in a spare clone).
 */
export class Database implements TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly connection: ConnectionOptions;
  readonly server: ServerInfo;
  readonly template: TestDatabase['template'];
  private readonly dialect: Dialect;
  private resetClient?: Promise<SqlClient>;
  private adminClient?: Promise<SqlClient>;
  private adminUsers = 0;
  /** Our PostgreSQL's postmaster, once read from its keeper's status (sessionTasks). */
  private postmaster?: number;

  constructor(private readonly spec: DatabaseSpec) {
    const { dialect, server, name } = spec;
    this.dialect = dialect;
    this.server = server;
    this.name = name;
    this.template = spec.template;
    this.url = spec.url ?? dialect.url(server, name);
    this.connection = { host: server.host, port: server.port, user: server.user, password: server.password, database: name };
  }

  async reset(): Promise<ResetReport> {
    // A failed connect is not kept: the next reset() tries again, and close() has nothing to end.
    this.resetClient ??= this.dialect.connect(this.server, this.name).catch((e: unknown) => {
      this.resetClient = undefined;
      throw e;
    });
    const client = await this.resetClient;
    client.hold(true);
    try {
      return await this.dialect.reset(client, this.name, this.spec.seeded);
    } finally {
      client.hold(false);
    }
  }

  /** Closes both connections this handle keeps; the database stays. */
  async close(): Promise<void> {
    this.release();
    await Promise.all([this.closeReset(), this.closeAdmin()]);
  }

  /** A closed handle of our own gives its name back: the process's next handle may replace that database. */
  private release(): void {
    if (this.spec.owner === 'self') heldNames.delete(this.name);
  }

  private async closeReset(): Promise<void> {
    const client = this.resetClient;
    this.resetClient = undefined;
    await closeKept(client);
  }

  private async closeAdmin(): Promise<void> {
    const client = this.adminClient;
    this.adminClient = undefined;
    await closeKept(client);
  }

  /** Runs `fn` on the kept admin connection; one that failed is closed, and the next call opens another. */
  private async withAdmin<T>(fn: (admin: SqlClient) => Promise<T>): Promise<T> {
    this.adminClient ??= this.dialect.connect(this.server).catch((e: unknown) => {
      this.adminClient = undefined;
      throw e;
    });
    const admin = await this.adminClient;
    // Between calls the idle connection must not keep the process alive; during one it must.
    if (this.adminUsers++ === 0) admin.hold(true);
    try {
      return await fn(admin);
    } catch (e) {
      await this.closeAdmin();
      throw e;
    } finally {
      if (--this.adminUsers === 0) admin.hold(false);
    }
  }

  async recreate(opts: { force?: boolean } = {}): Promise<void> {
    await this.closeReset();
    const force = opts.force ?? this.spec.owner === 'runner';
    await this.withAdmin((admin) =>
      recreateDatabase(this.dialect, admin, this.server, this.template.name, this.name, this.spec.run, force),
    );
    this.spec.onCloned?.();
  }

  async destroy(opts: { force?: boolean } = {}): Promise<void> {
    await this.closeReset();
    await this.withAdmin(async (admin) => {
      await releaseSpare(this.dialect, admin, this.server, this.template.name, this.name);
      const marker = await this.dialect.readMarker(admin, this.name);
      if (marker === undefined) return;
      if (marker === null)
        throw new FastTestDbError(
          'NOT_OURS',
          `${this.name} was not created by fast-test-db; left untouched`,
          'remove it yourself if you mean to',
        );
      await this.dialect.drop(admin, this.name, opts);
    }).finally(() => this.closeAdmin());
    this.release();
    this.spec.onDropped?.();
  }

  describe() {
    return this.withAdmin((admin) => this.dialect.describe(admin, this.server));
  }

  /**
   * The OS tasks serving the sessions now connected to this database (CPU pairing). PostgreSQL's
   * are found by their process titles, without a connection; else the dialect asks the server.
   */
  async sessionTasks(): Promise<number[]> {
    // A runner's worker asks every 100 ms; the server's pid stays for the life of this handle.
    const { stateDir } = this.server;
    if (this.server.engine === 'postgres' && stateDir) this.postmaster ??= readJson<KeeperStatus>(keeperFiles(stateDir).status)?.serverPid;
    const found = this.postmaster ? backendsServing(this.postmaster, this.name) : undefined;
    if (found) return found;
    const { sessionTasks } = this.dialect;
    if (!sessionTasks) return [];
    return this.withAdmin((admin) => sessionTasks(admin, this.name));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.spec.owner === 'self') await this.destroy();
    else await this.close();
  }
}

async function closeKept(client: Promise<SqlClient> | undefined): Promise<void> {
  if (!client) return;
  const c = await client.catch(() => undefined);
  if (!c) return;
  c.hold(true);
  await c.close();
}
