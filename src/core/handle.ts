/**
 * The test-database handle: the one TestDatabase implementation. It keeps two connections (one for
 * reset(), one to the server's admin database for recreate() and destroy()) and knows whether its
 * database is its own (dropped on dispose) or the runner's (only closed).
 */
import type { ServerRoles, SqlClient } from '../engines/engine.js';
import { FastTestDbError } from '../errors.js';
import { engineFor } from '../engines/index.js';
import { keeperFiles, type KeeperStatus } from '../server/keeper/files.js';
import { readJson } from '../server/os/shared-files.js';
import { backendsServing } from '../server/os/processes.js';
import type { ConnectionOptions, ResetReport, ServerInfo, TestDatabase } from '../types.js';
import { releaseName } from './names.js';
import { recreateDatabase, releaseSpare } from './recreate.js';

/** What a Database handle is made of; the runners build one from their handoff. */
export interface DatabaseSpec {
  /** The roles of the server's engine. */
  roles: ServerRoles;
  server: ServerInfo;
  name: string;
  /** Default: the engine's URL for `name`. */
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
  private readonly roles: ServerRoles;
  private resetClient?: Promise<SqlClient>;
  private adminClient?: Promise<SqlClient>;
  private adminUsers = 0;
  /** The main process of our server whose sessions are processes, once read from its keeper's status (sessionTasks). */
  private serverPid?: number;

  constructor(private readonly spec: DatabaseSpec) {
    const { roles, server, name } = spec;
    this.roles = roles;
    this.server = server;
    this.name = name;
    this.template = spec.template;
    this.url = spec.url ?? engineFor(server.engine).urls.url(server, name);
    this.connection = { host: server.host, port: server.port, user: server.user, password: server.password, database: name };
  }

  async reset(): Promise<ResetReport> {
    // A failed connect is not kept: the next reset() tries again, and close() has nothing to end.
    this.resetClient ??= this.roles.connector.connect(this.server, this.name).catch((e: unknown) => {
      this.resetClient = undefined;
      throw e;
    });
    const client = await this.resetClient;
    client.hold(true);
    try {
      return await this.roles.resetter.reset(client, this.name, this.spec.seeded);
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
    if (this.spec.owner === 'self') releaseName(this.name);
  }

  /** This handle's database and template, as recreate() and destroy() name them. */
  private target() {
    return { roles: this.roles, server: this.server, template: this.template.name, name: this.name };
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
    this.adminClient ??= this.roles.connector.connect(this.server).catch((e: unknown) => {
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
    await this.withAdmin((admin) => recreateDatabase(admin, { ...this.target(), run: this.spec.run, force }));
    this.spec.onCloned?.();
  }

  async destroy(opts: { force?: boolean } = {}): Promise<void> {
    await this.closeReset();
    await this.withAdmin(async (admin) => {
      await releaseSpare(admin, this.target());
      const marker = await this.roles.markers.readMarker(admin, this.name);
      if (marker === undefined) return;
      if (marker === null)
        throw new FastTestDbError(
          'NOT_OURS',
          `${this.name} was not created by fast-test-db; left untouched`,
          'remove it yourself if you mean to',
        );
      await this.roles.templates.drop(admin, this.name, opts);
    }).finally(() => this.closeAdmin());
    this.release();
    this.spec.onDropped?.();
  }

  describe() {
    return this.withAdmin((admin) => this.roles.inspector.describe(admin, this.server));
  }

  /**
   * The OS tasks serving the sessions now connected to this database (CPU pairing). On an engine
   * whose sessions are processes of their own (PostgreSQL's back-ends), those of a server started
   * here are found by their process titles, without a connection; else the server is asked.
   */
  async sessionTasks(): Promise<number[]> {
    // A runner's worker asks every 100 ms; the server's pid stays for the life of this handle.
    const { stateDir } = this.server;
    if (stateDir && engineFor(this.server.engine).server.sessionsAreProcesses)
      this.serverPid ??= readJson<KeeperStatus>(keeperFiles(stateDir).status)?.serverPid;
    const found = this.serverPid ? backendsServing(this.serverPid, this.name) : undefined;
    if (found) return found;
    return this.withAdmin((admin) => this.roles.inspector.sessionTasks(admin, this.name));
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
