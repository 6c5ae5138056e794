/**
 * prismaTestDb: a Prisma client on this worker's own database, cloned from a template that ran
 * the project's migrations once (template.ts). The client runs on a pool we create and hand to its
 * driver adapter (PrismaPg / PrismaMariaDb), so fastInsert can use that pool directly.
 * `database.reset()` works with the client connected; `database.recreate()` and
 * `database.destroy()` need `close()` first (or { force: true }), since the pool holds connections
 * to the database. prismaClient is the connection half alone, for runner integrations.
 */
import { resolve } from 'node:path';
import {
  beginEntry,
  openEntry,
  withOptions,
  type PoolEvents,
  ormHandle,
  FastTestDbError,
  runnerServer,
  type ConnectionOptions,
  type Flavor,
  type TestDatabase,
  type TestDatabaseOptions,
} from '../../src/adapter-kit.js';
import { driverConnection } from '../shared/connection.js';
import { engineFor, engineOfFlavor, flavorOfScheme } from '../../src/adapter-kit.js';
import { registerClient } from './context.js';
import { DRIVER_ADAPTERS, openDriver } from './driver.js';
import { engineOfProvider } from './migrations.js';
import { prisma6OrOlder } from './runtime-model.js';
import { parsePrismaSchema, readSchemaText, type PrismaSchemaText } from './schema.js';
import { prismaTemplate, type PrismaMigrateWith } from './template.js';

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
  const flavor = flavorOfScheme(scheme);
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
      port: Number(u.port || engineOfFlavor(flavor).urls.defaults({}).port),
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
    engineFor(parsed ? engineOfProvider(parsed.provider) : 'postgres').flavors[0]!;
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
    prisma = options.factory
      ? await options.factory(driver.driverAdapter as never)
      : new options.client!({ adapter: driver.driverAdapter as never });
  } catch (e) {
    await driver.end().catch(() => undefined);
    throw e;
  }
  // @prisma/adapter-mariadb 6 takes only settings, never a pool: handed ours, it waits for a
  // connection that never comes. Say so before the first query hangs.
  const clientVersion = prisma6OrOlder(prisma);
  if (!DRIVER_ADAPTERS[driver.driverAdapterName].prisma6 && clientVersion) {
    await driver.end().catch(() => undefined);
    throw new FastTestDbError(
      'UNSUPPORTED',
      `fast-test-db/prisma on MySQL/MariaDB needs Prisma 7; this client is Prisma ${clientVersion}, whose @prisma/adapter-mariadb cannot share a pool`,
      'upgrade @prisma/client, prisma and @prisma/adapter-mariadb to ^7.10.0 (Prisma 6 is supported on PostgreSQL)',
    );
  }

  pools.set(prisma, driver.pool);
  registerClient(prisma, fromFile, driver);

  const close = async () => {
    await (prisma as { $disconnect?: () => Promise<void> }).$disconnect?.();
    await driver.end().catch(() => undefined);
  };
  return { prisma, close, [Symbol.asyncDispose]: close };
}

export async function prismaTestDb<C extends object>(options: PrismaTestDbOptions<C>): Promise<PrismaTestDb<C>> {
  const { client, factory, schema: schemaOpt, migrations, migrateWith, poolSize, ...core } = options;
  const entry = beginEntry(core);
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
  const database = await openEntry(withOptions(entry, { engine, cacheKey: template.cacheKey, migrate: template.migrate }));

  const {
    orm: opened,
    close,
    [Symbol.asyncDispose]: dispose,
  } = await ormHandle(
    database,
    () => openClient(driverConnection(database), database.server.flavor, { client, factory, poolSize }, parsed),
    (o) => o.close(),
    { entry, pool: (o) => pools.get(o.prisma) as PoolEvents | undefined },
  );
  return { prisma: opened.prisma, database, close, [Symbol.asyncDispose]: dispose };
}
