/**
 * fastInsert on a delegate of the app's own Prisma 7 client (a NestJS `PrismaService extends
 * PrismaClient`, say), which prismaTestDb/prismaClient did not create. The client's driver adapter
 * factory says where the database is:
 * - PrismaPg given a pg.Pool: fastInsert runs on that very pool;
 * - PrismaPg given settings or a URL: on a pool of its own from the same settings;
 * - PrismaMariaDb: on what its factory's connect() hands out (the app's pool if it gave one, else a
 *   pool from its settings), reading values with per-statement options, as Prisma's driver adapter does.
 * A pool of our own is ended after a moment without fastInsert calls, so that it never keeps a test
 * process alive or a database busy; the next call opens it again.
 *
 * Refused, with the reason: other driver adapters, delegates of a `$transaction` callback (fastInsert
 * would run outside that transaction) and of `$extends()` clients (their query extensions would not
 * run), and Prisma 6 on MySQL/MariaDB (untested: its driver adapter cannot share a pool with prismaTestDb).
 */
import { engineFor, FastTestDbError, loadPeer } from '../../src/adapter-kit.js';
import { buildContext } from './context.js';
import { DRIVER_ADAPTERS, isDriverAdapterName, mariadbDriverOn, pgDriverOn, type DriverAdapterName, type PrismaDriver } from './driver.js';
import type { FastInsertContext } from './plan.js';
import { clientDriverAdapter, prisma6OrOlder } from './runtime-model.js';

/** Our own pool closes this long after the last fastInsert call on it. */
const IDLE_MS = 1000;

export interface AppClientLease {
  model: string;
  context(): Promise<FastInsertContext>;
  /** Called when a fastInsert call is over: starts the idle countdown of a pool of our own. */
  release(): void;
}

/** A driver adapter factory as Prisma keeps it on the client (new PrismaPg(...), new PrismaMariaDb(...)). */
interface DriverAdapterFactory {
  adapterName?: string;
  /** PrismaPg: the pool the app passed in, or null; and the settings it builds pools from. */
  externalPool?: unknown;
  config?: Record<string, unknown>;
  connect?(): Promise<{ underlyingDriver?(): unknown; dispose(): Promise<void> }>;
}

interface ClientState {
  context?: Promise<FastInsertContext>;
  driver?: PrismaDriver;
  inFlight: number;
  idle?: ReturnType<typeof setTimeout>;
  owned: boolean;
}

const clients = new WeakMap<object, ClientState>();

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

function refuse(what: string, fix: string): FastTestDbError {
  return new FastTestDbError('UNSUPPORTED', `fastInsert: ${what}`, fix);
}

/**
 * The lease for a delegate of an app's client, or undefined when `delegate` is no Prisma model
 * delegate at all. Throws UNSUPPORTED for a client fastInsert cannot write through exactly.
 */
export function appClientLease(delegate: object): AppClientLease | undefined {
  const d = delegate as { $name?: unknown; $parent?: unknown };
  const model = d.$name;
  const client = d.$parent as Record<string, unknown> | undefined;
  if (typeof model !== 'string' || !client || typeof client !== 'object') return undefined;
  const name = `prisma.${lowerFirst(model)}`;
  // A transaction client hides $connect; its delegates' $parent is the transaction's client.
  if (typeof client.$connect !== 'function') {
    throw refuse(
      `${name} belongs to a $transaction callback; fastInsert runs on the pool and would write outside that transaction`,
      `call fastInsert(prisma.${lowerFirst(model)}, rows) with the base client, before or after the transaction`,
    );
  }
  // An $extends() client's delegates are not the base client's, whose they name as $parent.
  if (client[lowerFirst(model)] !== delegate) {
    throw refuse(
      `${name} belongs to an $extends() client; its query extensions would not run on rows fastInsert writes`,
      `pass the delegate of the client you extended (base.${lowerFirst(model)}), if the rows do not depend on those extensions`,
    );
  }
  const factory = clientDriverAdapter(client) as DriverAdapterFactory | undefined;
  const driverAdapterName = factory?.adapterName;
  if (!isDriverAdapterName(driverAdapterName)) {
    throw refuse(
      `${name} belongs to a client ${driverAdapterName ? `on the driver adapter ${driverAdapterName}` : 'without a driver adapter'}; fastInsert writes through ${Object.keys(DRIVER_ADAPTERS).join(' or ')} only`,
      'build the client with new PrismaClient({ adapter: new PrismaPg(...) }) or PrismaMariaDb(...), or use prismaTestDb()/prismaClient()',
    );
  }
  const version = prisma6OrOlder(client);
  if (!DRIVER_ADAPTERS[driverAdapterName].prisma6 && version) {
    throw refuse(
      `${name} belongs to a Prisma ${version} client on MySQL/MariaDB, which fastInsert does not support`,
      'upgrade @prisma/client, prisma and @prisma/adapter-mariadb to ^7.10.0 (Prisma 6 is supported on PostgreSQL)',
    );
  }
  let state = clients.get(client);
  if (!state) clients.set(client, (state = { inFlight: 0, owned: false }));
  const s = state;
  if (s.idle) clearTimeout(s.idle);
  s.idle = undefined;
  s.inFlight++;
  return {
    model,
    context: () =>
      (s.context ??= open(client, factory!, driverAdapterName, s).catch((e: unknown) => {
        s.context = undefined;
        throw e;
      })),
    release() {
      if (--s.inFlight > 0 || !s.owned) return;
      s.idle = setTimeout(() => {
        const driver = s.driver;
        s.context = s.driver = s.idle = undefined;
        void driver?.end().catch(() => undefined);
      }, IDLE_MS);
      s.idle.unref?.();
    },
  };
}

async function open(
  client: Record<string, unknown>,
  factory: DriverAdapterFactory,
  driverAdapterName: DriverAdapterName,
  s: ClientState,
): Promise<FastInsertContext> {
  let driver: PrismaDriver;
  if (driverAdapterName === '@prisma/adapter-pg') {
    const pg = await loadPeer<typeof import('pg')>('pg', 'fastInsert on PostgreSQL');
    const Pool = pg.Pool ?? (pg as unknown as { default: typeof import('pg') }).default.Pool;
    if (factory.externalPool) {
      driver = pgDriverOn(factory.externalPool, pg, factory, async () => undefined);
    } else {
      const pool = new Pool({ ...factory.config, allowExitOnIdle: true });
      pool.on('error', () => undefined);
      driver = pgDriverOn(pool, pg, factory, () => pool.end());
      s.owned = true;
    }
  } else {
    // The driver adapter keeps its pool or settings private; connecting it again hands out its pool.
    // Connect the app's client first: a driver adapter that may claim its pool once must give it to the app.
    await (client.$connect as () => Promise<void>)();
    let connected: Awaited<ReturnType<NonNullable<DriverAdapterFactory['connect']>>>;
    try {
      connected = await factory.connect!();
    } catch (e) {
      throw refuse(
        `PrismaMariaDb would not connect a second time (${(e as Error).message})`,
        'pass the adapter its pool without disposeExternalPool: true, or connection settings',
      );
    }
    const pool = connected.underlyingDriver?.();
    if (!pool)
      throw refuse(
        'this PrismaMariaDb version does not expose its pool',
        'use prismaTestDb()/prismaClient(), or upgrade @prisma/adapter-mariadb to 7.10 or later',
      );
    const version = (await (pool as { query(q: string): Promise<Array<{ v: string }>> }).query('SELECT VERSION() AS v'))[0]?.v ?? '';
    const flavor = engineFor(DRIVER_ADAPTERS[driverAdapterName].engine).flavorOfVersion(version);
    driver = mariadbDriverOn(pool, flavor, factory, () => connected.dispose(), true);
    s.owned = true;
  }
  s.driver = driver;
  return buildContext(client, undefined, driver);
}
