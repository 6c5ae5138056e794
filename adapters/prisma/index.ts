/**
 * fast-test-db/prisma: a Prisma 7 client on this worker's own database, cloned from a template
 * that ran the project's migrations once, and fastInsert for seeding.
 *
 *   const { prisma, database } = await prismaTestDb({ client: PrismaClient, schema: 'prisma/schema.prisma' });
 *   const alice = await fastInsert(prisma.user, { email: 'a@x.io' });
 *
 * The client runs on a pool we create and hand to its driver adapter (PrismaPg / PrismaMariaDb),
 * so fastInsert can use that pool directly. `database.reset()` works with the client connected;
 * `database.recreate()` and `database.destroy()` need `close()` first (or { force: true }), since
 * the pool holds connections to the database.
 *
 * Under a runner integration the two halves are apart: `prismaTemplate()` as the config's adapter
 * (the global setup builds the template), `prismaClient()` in a setup file on the worker's URL.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  adapterDatabase,
  driverConnection,
  type PoolEvents,
  ormHandle,
  FastTestDbError,
  runnerServer,
  type ConnectionOptions,
  type Engine,
  type Flavor,
  type MigrateFn,
  type TemplateSource,
  type TestDatabase,
  type TestDatabaseOptions,
} from '../../src/adapter-kit.js';
import { runPrismaCli } from './cli.js';
import { appClientLease } from './app-client.js';
import { buildContext, inlineSchema } from './context.js';
import { openDriver, openScriptRunner } from './driver.js';
import { insertRows, type FastInsertContext } from './fast-insert.js';
import { applyMigrations, lockedProvider, readMigrations } from './migrations.js';
import { parsePrismaSchema, type PrismaSchemaText } from './schema.js';
import { prisma6OrOlder } from './runtime-model.js';

export { applyMigrations, readMigrations, MIGRATIONS_TABLE_DDL, type PrismaMigration } from './migrations.js';
export { parsePrismaSchema, type PrismaSchema, type PrismaSchemaText, type PrismaModel, type PrismaField } from './schema.js';

/**
 * How the template gets its schema:
 * - 'sql' (default): apply prisma/migrations/<name>/migration.sql and record them in
 *   _prisma_migrations as `migrate deploy` does. Needs no schema engine.
 * - 'migrate-deploy': run `prisma migrate deploy` (needs the schema engine).
 * - 'db-push': run `prisma db push`, for projects without migrations (needs the schema engine).
 */
export type PrismaMigrateWith = 'sql' | 'migrate-deploy' | 'db-push';

export interface PrismaTestDbOptions<C> extends Omit<TestDatabaseOptions, 'migrate' | 'migrationFiles'> {
  /** The generated PrismaClient class; constructed as `new client({ adapter })`. */
  client?: new (options: {
    adapter: never;
  }) => C;
  /** Or a factory, for clients that need more options (log, omit, $extends). */
  factory?: (adapter: never) => C | Promise<C>;
  /** Schema file or folder. Default: prisma/schema.prisma. */
  schema?: string;
  /** Migrations folder. Default: `migrations` next to the schema. */
  migrations?: string;
  migrateWith?: PrismaMigrateWith;
  /** Connections in the pool shared by the client and fastInsert. Default 10. */
  poolSize?: number;
}

export interface PrismaTestDb<C> extends AsyncDisposable {
  /** The generated client, on this worker's database; its schema is already there. */
  prisma: C;
  /** This worker's test database: reset(), recreate(), destroy(), url, connection. */
  database: TestDatabase;
  /** Disconnects the client, ends its pool and closes the database's own connection; the database stays. */
  close(): Promise<void>;
}

interface Registered {
  ctx: () => Promise<FastInsertContext>;
  /** Set once ctx() resolved: the per-row path then awaits nothing before the driver. */
  ready: { value?: FastInsertContext };
  model?: string;
}

/** Clients and model delegates made by prismaTestDb or prismaClient, so fastInsert finds their pool and schema. */
const registry = new WeakMap<object, Registered>();

function readSchemaText(path: string): string {
  if (!existsSync(path))
    throw new FastTestDbError(
      'BAD_OPTION',
      `Prisma schema ${path} does not exist`,
      'pass schema: the path of schema.prisma (or of the folder holding *.prisma files)',
    );
  if (!statSync(path).isDirectory()) return readFileSync(path, 'utf8');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        if (n !== 'migrations') walk(p);
      } else if (n.endsWith('.prisma')) files.push(p);
    }
  };
  walk(path);
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
}

function engineOfProvider(provider: string): Engine {
  if (provider === 'postgresql' || provider === 'postgres') return 'postgres';
  if (provider === 'mysql') return 'mysql';
  throw new FastTestDbError(
    'UNSUPPORTED',
    `datasource provider "${provider}" is not supported by fast-test-db`,
    'use provider "postgresql" or "mysql" (MariaDB is "mysql")',
  );
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export interface PrismaTemplateOptions {
  /** Schema file or folder. Default: prisma/schema.prisma. */
  schema?: string;
  /** Migrations folder. Default: `migrations` next to the schema. */
  migrations?: string;
  migrateWith?: PrismaMigrateWith;
  /** Added to the fingerprint, to tell apart templates the files alone would not. */
  cacheKey?: string;
}

/**
 * The template half of prismaTestDb, for runner integrations (fast-test-db/vitest, /jest) whose
 * global setup builds the template: `adapter: () => prismaTemplate({ schema })`.
 */
export async function prismaTemplate(options: PrismaTemplateOptions = {}): Promise<TemplateSource> {
  const { migrateWith = 'sql' } = options;
  const schemaPath = resolve(options.schema ?? 'prisma/schema.prisma');
  const schemaText = readSchemaText(schemaPath);
  const parsed = parsePrismaSchema(schemaText);
  const engine = engineOfProvider(parsed.provider);
  const migrationsDir = resolve(
    options.migrations ?? join(statSync(schemaPath).isDirectory() ? schemaPath : dirname(schemaPath), 'migrations'),
  );
  const migrations = readMigrations(migrationsDir);
  if (migrateWith === 'sql') {
    if (migrations.length === 0) {
      throw new FastTestDbError(
        'BAD_OPTION',
        `no migrations in ${migrationsDir}`,
        'pass migrations: the folder holding <name>/migration.sql, or use migrateWith: "db-push" (needs the Prisma schema engine)',
      );
    }
    const locked = lockedProvider(migrationsDir);
    if (locked && locked !== parsed.provider) {
      throw new FastTestDbError(
        'BAD_OPTION',
        `migration_lock.toml says provider "${locked}" but the schema says "${parsed.provider}"`,
        'point schema and migrations at the same project',
      );
    }
  }

  // The template depends on the migrations, the schema and how they are applied.
  const fp = createHash('sha256').update(
    JSON.stringify({ migrateWith, schemaText, migrations: migrations.map((m) => [m.name, m.checksum]) }),
  );
  const cacheKey = `prisma:${fp.digest('hex').slice(0, 16)}${options.cacheKey ? `:${options.cacheKey}` : ''}`;

  const migrate: MigrateFn = async (url, ctx) => {
    if (migrateWith === 'migrate-deploy' || migrateWith === 'db-push') {
      await runPrismaCli(migrateWith, { schema: schemaPath, migrations: migrationsDir, url });
      return;
    }
    const runner = await openScriptRunner(ctx.connection, engine === 'postgres' ? 'postgres' : 'mysql');
    try {
      await applyMigrations(runner, migrations);
    } finally {
      await runner.close();
    }
  };
  return { migrate, cacheKey, engine };
}

export interface PrismaClientOptions<C> {
  /** The generated PrismaClient class; constructed as `new client({ adapter })`. */
  client?: new (options: {
    adapter: never;
  }) => C;
  /** Or a factory, for clients that need more options (log, omit, $extends). */
  factory?: (adapter: never) => C | Promise<C>;
  /**
   * The database: a URL such as the DATABASE_URL a runner integration exported, or connection
   * options (`testDatabase().connection`).
   */
  database: string | ConnectionOptions;
  /**
   * Schema file or folder, for fastInsert when the client does not embed its schema. Default: the
   * schema embedded in the generated client.
   */
  schema?: string;
  /** 'mariadb' lets fastInsert use RETURNING. Default: the runner's server, else from the URL or schema. */
  flavor?: Flavor;
  /** Connections in the pool shared by the client and fastInsert. Default 10. */
  poolSize?: number;
}

export interface PrismaClientHandle<C> extends AsyncDisposable {
  prisma: C;
  /** Disconnects the client and ends the pool. */
  close(): Promise<void>;
}

function connectionOf(url: string): { connection: ConnectionOptions; flavor?: Flavor } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new FastTestDbError(
      'BAD_OPTION',
      'prismaClient: `database` is not a URL',
      'pass the URL the runner exported (process.env.DATABASE_URL) or testDatabase().connection',
    );
  }
  const scheme = u.protocol.replace(/:$/, '');
  const flavor: Flavor | undefined =
    scheme === 'postgres' || scheme === 'postgresql'
      ? 'postgres'
      : scheme === 'mariadb'
        ? 'mariadb'
        : scheme === 'mysql'
          ? 'mysql'
          : undefined;
  if (!flavor)
    throw new FastTestDbError(
      'UNSUPPORTED',
      `prismaClient: URL scheme "${scheme}" is not PostgreSQL, MySQL or MariaDB`,
      'use a postgres:// or mysql:// URL',
    );
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return {
    flavor,
    connection: {
      host,
      port: Number(u.port || (flavor === 'postgres' ? 5432 : 3306)),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: decodeURIComponent(u.pathname.slice(1)),
    },
  };
}

/**
 * The connection half: a client on an existing database (the worker's, under a runner
 * integration), on a pool fastInsert shares. It neither migrates nor creates the database.
 */
export async function prismaClient<C extends object>(options: PrismaClientOptions<C>): Promise<PrismaClientHandle<C>> {
  const { client, factory, poolSize } = options;
  if (!client === !factory)
    throw new FastTestDbError(
      'BAD_OPTION',
      'prismaClient needs exactly one of `client` (your generated PrismaClient class) or `factory` ((adapter) => client)',
      "import { PrismaClient } from './generated/prisma/client.js' and pass { client: PrismaClient }",
    );
  if (!options.database)
    throw new FastTestDbError(
      'BAD_OPTION',
      'prismaClient needs `database`, and it is empty',
      'pass process.env.DATABASE_URL after the runner setup file ran, or testDatabase().connection',
    );
  const fromUrl =
    typeof options.database === 'string' ? connectionOf(options.database) : { connection: options.database, flavor: undefined };
  const parsed = options.schema ? parsePrismaSchema(readSchemaText(resolve(options.schema))) : undefined;
  // A mysql:// URL does not say MariaDB; the server the runner started does.
  const flavor: Flavor =
    options.flavor ??
    runnerServer()?.flavor ??
    fromUrl.flavor ??
    (parsed && engineOfProvider(parsed.provider) === 'mysql' ? 'mysql' : 'postgres');
  return openClient(fromUrl.connection, flavor, { client, factory, poolSize }, parsed);
}

/** The pool under each client we opened, for CPU pairing to follow. */
const pools = new WeakMap<object, unknown>();

/** Opens the client on our pool and registers it and its delegates for fastInsert. */
async function openClient<C extends object>(
  connection: ConnectionOptions,
  flavor: Flavor,
  options: Pick<PrismaClientOptions<C>, 'client' | 'factory' | 'poolSize'>,
  fromFile: PrismaSchemaText | undefined,
): Promise<PrismaClientHandle<C>> {
  const driver = await openDriver(connection, flavor, { max: options.poolSize });
  let prisma: C;
  try {
    prisma = options.factory ? await options.factory(driver.adapter as never) : new options.client!({ adapter: driver.adapter as never });
  } catch (e) {
    await driver.end().catch(() => undefined);
    throw e;
  }
  // @prisma/adapter-mariadb 6 takes only settings, never a pool: handed ours, it waits for a
  // connection that never comes. Say so before the first query hangs.
  const clientVersion = prisma6OrOlder(prisma);
  if (driver.family === 'mysql' && clientVersion) {
    await driver.end().catch(() => undefined);
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fast-test-db/prisma on MySQL/MariaDB needs Prisma 7; this client is Prisma ${clientVersion}, whose @prisma/adapter-mariadb cannot share a pool`,
      'upgrade @prisma/client, prisma and @prisma/adapter-mariadb to ^7.10.0 (Prisma 6 is supported on PostgreSQL)',
    );
  }

  pools.set(prisma, driver.pool);
  let ctxPromise: Promise<FastInsertContext> | undefined;
  const ready: Registered['ready'] = {};
  const ctx = () => (ctxPromise ??= buildContext(prisma, fromFile, driver).then((c) => (ready.value = c)));
  registry.set(prisma, { ctx, ready });
  const models = fromFile?.models.keys() ?? inlineSchema(prisma)?.models.keys() ?? [];
  for (const model of models) {
    const delegate = (prisma as Record<string, unknown>)[lowerFirst(model)];
    if (delegate && typeof delegate === 'object') registry.set(delegate, { ctx, ready, model });
  }

  const close = async () => {
    await (prisma as { $disconnect?: () => Promise<void> }).$disconnect?.();
    await driver.end().catch(() => undefined);
  };
  return { prisma, close, [Symbol.asyncDispose]: close };
}

export async function prismaTestDb<C extends object>(options: PrismaTestDbOptions<C>): Promise<PrismaTestDb<C>> {
  const { client, factory, schema: schemaOpt, migrations, migrateWith, poolSize, ...core } = options;
  if (!client === !factory)
    throw new FastTestDbError(
      'BAD_OPTION',
      'prismaTestDb needs exactly one of `client` (your generated PrismaClient class) or `factory` ((adapter) => client)',
      "import { PrismaClient } from './generated/prisma/client.js' and pass { client: PrismaClient }",
    );
  const schemaPath = resolve(schemaOpt ?? 'prisma/schema.prisma');
  const parsed = parsePrismaSchema(readSchemaText(schemaPath));
  const engine = engineOfProvider(parsed.provider);
  if (core.engine && core.engine !== engine) {
    throw new FastTestDbError(
      'BAD_OPTION',
      `engine "${core.engine}" does not match the schema's provider "${parsed.provider}"`,
      'leave engine out: it follows the schema',
    );
  }
  const template = await prismaTemplate({ schema: schemaPath, migrations, migrateWith, cacheKey: core.cacheKey });
  const database = await adapterDatabase({ ...core, engine, cacheKey: template.cacheKey, migrate: template.migrate });

  const {
    orm: opened,
    close,
    [Symbol.asyncDispose]: dispose,
  } = await ormHandle(
    database,
    () => openClient(driverConnection(database), database.server.flavor, { client, factory, poolSize }, parsed),
    (o) => o.close(),
    { options: core, pool: (o) => pools.get(o.prisma) as PoolEvents | undefined },
  );
  return { prisma: opened.prisma, database, close, [Symbol.asyncDispose]: dispose };
}

/** A Prisma model delegate such as `prisma.user`. */
export interface ModelDelegate {
  create(args: never): unknown;
}

/** create()'s `data` for this delegate (checked or unchecked input, as create takes). */
export type CreateData<D> = 0 extends 1 & D
  ? any
  : D extends { create(args: infer A): unknown }
    ? A extends { data: infer I }
      ? I
      : never
    : never;

/** The record create() returns for this delegate. */
export type CreatedRecord<D> = 0 extends 1 & D
  ? any
  : D extends { findFirstOrThrow(args?: never): PromiseLike<infer R> }
    ? R
    : Record<string, unknown>;

export interface FastInsertOptions {
  /** false: skip RETURNING / reading rows back and resolve to nothing. Default true. */
  returning?: boolean;
  /**
   * PostgreSQL: single-row calls started in the same tick (Promise.all over a map) go out together
   * as multi-row INSERTs (one round trip per batch; a batch the server refuses is sent again row
   * by row, so each call settles as alone; what differs: sequence values the refused batch drew are
   * skipped, now() is one value per batch, statement triggers fire once per batch). Default true.
   */
  coalesce?: boolean;
}

/**
 * Inserts rows as `create()` would write them, without Prisma's query pipeline: one prepared
 * INSERT per column set, batched, RETURNING the rows (re-read by key on MySQL 8).
 *
 * Takes the model delegate (`prisma.post`), so it reads like `prisma.post.create()` and the
 * row and result types follow from the delegate; no model name string to mistype. The delegate
 * may come from a client made by prismaTestDb or prismaClient (which share their pool with it),
 * or from the app's own Prisma 7 client on @prisma/adapter-pg or @prisma/adapter-mariadb (a client
 * without a driver adapter is refused with UNSUPPORTED, which says why).
 *
 * One row in: its record, shaped like create() returns it (every field, on every engine). An
 * array in: the records in input order. `{ returning: false }`: nothing. Nested relation writes,
 * unknown fields and values create() would reject throw FastTestDbError('UNSUPPORTED').
 */
export function fastInsert<D>(
  delegate: D,
  rows: ReadonlyArray<CreateData<D>>,
  options?: FastInsertOptions & { returning?: true },
): Promise<Array<CreatedRecord<D>>>;
export function fastInsert<D>(
  delegate: D,
  row: CreateData<D>,
  options?: FastInsertOptions & { returning?: true },
): Promise<CreatedRecord<D>>;
export function fastInsert<D>(
  delegate: D,
  rows: CreateData<D> | ReadonlyArray<CreateData<D>>,
  options: FastInsertOptions & { returning: false },
): Promise<void>;
export async function fastInsert<D>(
  delegate: D,
  rows: CreateData<D> | ReadonlyArray<CreateData<D>>,
  options: FastInsertOptions = {},
): Promise<Array<CreatedRecord<D>> | CreatedRecord<D> | undefined> {
  const out = await insertList(delegate, rows, options);
  if (options.returning === false) return undefined;
  return (Array.isArray(rows) ? out : out[0]) as Array<CreatedRecord<D>> | CreatedRecord<D>;
}

/** The rows of one call, as a list whatever its shape; the records (none without returning) in input order. */
async function insertList<D>(
  delegate: D,
  rows: CreateData<D> | ReadonlyArray<CreateData<D>>,
  options: FastInsertOptions,
): Promise<Array<Record<string, unknown> | undefined>> {
  const reg = delegate && typeof delegate === 'object' ? registry.get(delegate) : undefined;
  const list = (Array.isArray(rows) ? rows : [rows]) as unknown as Array<Record<string, unknown>>;
  const returning = options.returning !== false;
  const how = { returning, coalesce: options.coalesce };
  let out: Array<Record<string, unknown> | undefined>;
  if (reg?.model) {
    if (list.length === 0) return [];
    out = await insertRows(reg.ready.value ?? (await reg.ctx()), reg.model, list, how);
  } else {
    // Not a client of ours: the app's own client, reached through the delegate.
    const lease = delegate && typeof delegate === 'object' && !reg ? appClientLease(delegate) : undefined;
    if (!lease) {
      throw new FastTestDbError(
        'BAD_OPTION',
        reg
          ? 'fastInsert takes a model delegate such as prisma.user, not the client'
          : 'fastInsert: the first argument is not a Prisma model delegate',
        'pass a model delegate of a Prisma 7 client, e.g. fastInsert(prisma.user, rows)',
      );
    }
    try {
      if (list.length === 0) return [];
      out = await insertRows(await lease.context(), lease.model, list, how);
    } finally {
      lease.release();
    }
  }
  return out;
}
