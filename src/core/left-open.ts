/**
 * Connections a successful `migrate` left open to its template. PostgreSQL clones a template only
 * when no session is connected to it, and a node-postgres client whose session the server ends
 * emits an 'error' event: a client left without a listener would crash the user's process. So the
 * node-postgres clients migrate connects are noted while it runs (a wrapper around
 * `Client.prototype.connect`, removed when it ends); those still open to the template afterwards
 * are closed with their own `end()`, which raises nothing, and a warning names where each was
 * connected. Sessions of anything else (another driver, a child process) get a moment to go, then a
 * warning naming them, before the template's sessions are ended as before.
 */
import type { ServerRoles, SqlClient } from '../engines/engine.js';
import type { OpenSession } from '../engines/marker.js';
import { logger } from '../util/log.js';
import { loadPeer } from '../util/peer.js';
import { sleep } from '../util/sleep.js';
import { type ConnectProto, pgConnectWatch } from '../state.js';

const log = logger('template');

/** How long sessions a migrate closed just before it resolved (a pool's end() not awaited) take to go. */
const SETTLE_MS = 2_000;

/** The little of a node-postgres Client we read and call. */
interface PgClientLike {
  connect(...args: unknown[]): unknown;
  end(): Promise<void>;
  connectionParameters?: { database?: string; application_name?: string };
  _ending?: boolean;
  _ended?: boolean;
}

interface Noted {
  client: PgClientLike;
  /** Where migrate connected it, as a stack trace. */
  stack: string;
}

async function pgClientProto(): Promise<ConnectProto | undefined> {
  const pg = await loadPeer<any>('pg', 'PostgreSQL support').catch(() => undefined);
  return (pg?.Client ?? pg?.default?.Client)?.prototype as ConnectProto | undefined;
}

/** Runs `fn` noting every node-postgres client connected meanwhile in this process. */
export async function noteClients<T>(fn: () => Promise<T>): Promise<{ value: T; noted: Noted[] }> {
  const noted: Noted[] = [];
  const proto = await pgClientProto();
  if (proto && !pgConnectWatch.installed) {
    const original = proto.connect;
    const wrapper = function (this: PgClientLike, ...args: unknown[]) {
      const stack = new Error('connected here').stack ?? '';
      for (const w of pgConnectWatch.watchers) w.push({ client: this, stack });
      return original.apply(this, args);
    };
    proto.connect = wrapper;
    pgConnectWatch.installed = { proto, original, wrapper };
  }
  pgConnectWatch.watchers.add(noted);
  try {
    return { value: await fn(), noted };
  } finally {
    pgConnectWatch.watchers.delete(noted);
    // Put back only our own wrapper: whatever else replaced it since is left as it is.
    const { installed } = pgConnectWatch;
    if (pgConnectWatch.watchers.size === 0 && installed) {
      if (installed.proto.connect === installed.wrapper) installed.proto.connect = installed.original;
      pgConnectWatch.installed = undefined;
    }
  }
}

/** The first frame of a stack outside node-postgres, pg-pool and this library: the user's line. */
function userFrame(stack: string): string {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''));
  const own = /node_modules[\\/](pg|pg-pool)[\\/]|[\\/]fast-test-db[\\/](dist|src)[\\/]|[\\/]src[\\/]core[\\/]left-open\.|node:internal/;
  return frames.find((f) => !own.test(f)) ?? frames[0] ?? 'an unknown place';
}

/**
 * After a successful migrate into `template`: closes what it left open and warns about it, so that
 * the template has no session left and no user's client sees its session ended under it.
 */
export async function closeLeftOpen(
  roles: Pick<ServerRoles, 'templates' | 'inspector'>,
  admin: SqlClient,
  template: string,
  noted: Noted[],
): Promise<void> {
  if (!roles.templates.clonesNeedNoSessions) return;
  const sessions = () => roles.inspector.openSessions(admin, template);
  if ((await settled(sessions, 0)).length === 0) return;
  const open = noted.filter(({ client }) => client.connectionParameters?.database === template && !client._ending && !client._ended);
  for (const { client, stack } of open) {
    process.emitWarning(
      `fast-test-db: migrate left a pg client open on template ${template} (connected at ${userFrame(stack)}); fast-test-db closed it with client.end(). Close it yourself when migrate is done (await client.end(), or pool.end(), in a finally block).`,
      { code: 'FAST_TEST_DB_LEFT_OPEN' },
    );
    await client.end().catch((e: unknown) => log('closing a client migrate left open: %s', (e as Error).message));
  }
  const left = await settled(sessions, SETTLE_MS);
  for (const s of left)
    process.emitWarning(
      `fast-test-db: migrate left a session open on template ${template} (${describeSession(s)}); it is ended now. Close the connections migrate opens before it returns.`,
      { code: 'FAST_TEST_DB_LEFT_OPEN' },
    );
}

function describeSession(s: OpenSession): string {
  const app = s.application ? `application_name "${s.application}", ` : '';
  const from = s.client ? `from ${s.client}, ` : '';
  return `${app}${from}server process ${s.pid}, ${s.state ?? 'state unknown'}${s.query ? `, last query: ${s.query}` : ''}`;
}

/** What `sessions` reads, once it reads none or after `ms`. */
async function settled(sessions: () => Promise<OpenSession[]>, ms: number): Promise<OpenSession[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await sessions();
    if (open.length === 0 || Date.now() >= deadline) return open;
    await sleep(50);
  }
}
