/**
 * Servers in containers, for machines with a Docker engine. Each engine module describes its
 * container as plain data (unit-tested without Docker); this file turns a description into a
 * running testcontainers GenericContainer, owns it until its process ends, and finds the
 * containers that processes killed without a chance to clean up (SIGKILL) left behind.
 *
 * Clean-up does not rest on testcontainers' reaper (Ryuk): its image comes from Docker Hub, which
 * many CI machines cannot reach. Every container carries our labels with its owner (host, pid and
 * the pid's start time, as pids are recycled); the next start and `clean` remove those whose owner
 * has ended, and `doctor` lists them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { FastTestDbError, messageOf } from '../../errors.js';
import { loadPeer } from '../../util/peer.js';
import { here } from '../../here.js';
import { engineFor } from '../../engines/index.js';
import type { ContainerDefinition } from '../../engines/engine.js';
import { describeServer, withClient } from '../../engines/connect.js';
import type { EngineName, ServerInfo } from '../../types.js';
import { pidAlive } from '../os/lock.js';
import { statFields } from '../os/proc-stat.js';
import { ownedContainers } from '../../state.js';
import { startedServer, type ProviderFactory, type ServerContext, type StartedServer } from '../provider.js';

export type { ContainerDefinition };

// ---------------------------------------------------------------------------------------------
// Owners

/** The label that marks a container as ours; its value is the engine. */
export const OURS_LABEL = 'fast-test-db.engine';
const OWNER_HOST = 'fast-test-db.owner-host';
const OWNER_PID = 'fast-test-db.owner-pid';
const OWNER_START = 'fast-test-db.owner-start';
/** The project (working directory) it was started for: a start and `clean` look at their project's only, as for embedded servers. */
const PROJECT = 'fast-test-db.project';

/** When `pid` started (clock ticks since boot): a recycled pid has another. Undefined without /proc. */
function startOf(pid: number | 'self'): string | undefined {
  return statFields(pid)?.[19];
}

/** The labels a container started by this process for `project` carries. */
export function ownerLabels(engine: EngineName, project: string): Record<string, string> {
  const labels: Record<string, string> = {
    [OURS_LABEL]: engine,
    [OWNER_HOST]: hostname(),
    [OWNER_PID]: String(process.pid),
    [PROJECT]: project,
  };
  const start = startOf('self');
  if (start) labels[OWNER_START] = start;
  return labels;
}

/**
 * Whether the process that started a container has ended: `undefined` when that cannot be told
 * from here (another machine's pid, or a container started elsewhere), which leaves it alone.
 */
export function ownerEnded(labels: Record<string, string>): boolean | undefined {
  const pid = Number(labels[OWNER_PID]);
  if (labels[OWNER_HOST] !== hostname() || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (!pidAlive(pid)) return true;
  const start = labels[OWNER_START];
  return start !== undefined && startOf(pid) !== undefined && startOf(pid) !== start;
}

/** A container of ours, as the engine lists it. */
export interface OurContainer {
  id: string;
  image: string;
  engine: string;
  /** `pid@host` of the process that started it. */
  owner: string;
  project: string;
  ended: boolean | undefined;
  ageMs: number;
}

// ---------------------------------------------------------------------------------------------
// testcontainers

/** The installed testcontainers: its version and the Node versions it declares, read from its package.json. */
function installed(specifier: string): { version: string; node?: string } | undefined {
  let dir: string;
  try {
    dir = dirname(createRequire(join(here(), 'x.js')).resolve(specifier));
  } catch {
    return undefined;
  }
  for (; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; engines?: { node?: string } };
    if (pkg.name === 'testcontainers') return { version: pkg.version ?? '?', node: pkg.engines?.node };
  }
  return undefined;
}

/** The lowest Node version a `>= x.y.z` range allows; undefined for any other form of range. */
function nodeFloor(range: string | undefined): number[] | undefined {
  const m = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range ?? '');
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

function below(version: string, floor: number[]): boolean {
  const v = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((v[i] ?? 0) !== floor[i]) return (v[i] ?? 0) < floor[i]!;
  return false;
}

function unsupported(found: { version: string; node?: string }, why: string, cause?: unknown): FastTestDbError {
  return new FastTestDbError(
    'PEER_UNSUPPORTED',
    `testcontainers ${found.version} cannot run on Node ${process.version}${found.node ? ` (it needs Node ${found.node})` : ''}: ${why}`,
    'install testcontainers 11, the version tested on Node 20 and later (npm install --save-dev testcontainers@^11.9.0), or run a Node that testcontainers supports',
    { cause },
  );
}

/**
 * Loads testcontainers, or says why it cannot be: a version whose Node range excludes this Node
 * (testcontainers 12 needs Node 22.22 and crashes at import on Node 20) is named with both
 * versions, rather than reported as a Docker engine that does not answer.
 */
export async function loadTestcontainers(specifier = 'testcontainers'): Promise<any> {
  const found = installed(specifier);
  const floor = nodeFloor(found?.node);
  if (found && floor && below(process.version, floor)) throw unsupported(found, 'its package declares a newer Node');
  let tc: any;
  try {
    tc = await loadPeer<any>(specifier, "server: 'container'");
  } catch (e) {
    if (e instanceof FastTestDbError) throw e;
    throw unsupported(found ?? { version: '(unknown version)' }, `importing it failed: ${messageOf(e)}`, e);
  }
  return tc.GenericContainer ? tc : tc.default;
}

/** A started container, as much of it as we use: where to reach it, and how to stop and remove it. */
export interface RunningContainer {
  id: string;
  host: string;
  port: number;
  /** Stops and removes the container. */
  stop(): Promise<void>;
}

/** What starts containers: testcontainers by default; tests of the ownership wiring pass their own. */
export interface ContainerRunner {
  start(def: ContainerDefinition, labels: Record<string, string>): Promise<RunningContainer>;
  /** Last resort at process exit, when nothing asynchronous can run any more. */
  removeNow?(id: string): void;
  /** Removes the containers of `project` whose owner has ended (a SIGKILLed run's). */
  removeLeft?(project: string): Promise<void>;
}

/** Read where testcontainers reads it (process.env), so that both agree on whether Ryuk runs. */
function ryukEnabled(): boolean {
  return !/^(true|1)$/i.test(process.env.TESTCONTAINERS_RYUK_DISABLED ?? '');
}

/** The error a failed start gets, from what the engine says once asked again. */
async function startError(tc: any, def: ContainerDefinition, e: unknown): Promise<FastTestDbError> {
  let client: any;
  try {
    client = await tc.getContainerRuntimeClient();
  } catch (down) {
    return new FastTestDbError(
      'DOCKER_UNAVAILABLE',
      `could not start a ${def.image} container: no Docker engine answers (${messageOf(down)})`,
      "start a Docker engine (or set DOCKER_HOST to one), or use server: 'embedded' (the default), which needs no Docker",
      { cause: e },
    );
  }
  const exists = await client.image.exists(tc.ImageName.fromString(def.image)).catch(() => true);
  if (!exists)
    return new FastTestDbError(
      'IMAGE_PULL_FAILED',
      `the image ${def.image} is not on this Docker engine and could not be pulled: ${messageOf(e)}`,
      `build or pull ${def.image} where a registry answers (docker build -t ${def.image} ... / docker pull), or set FAST_TEST_DB_IMAGE (the image option) to an image this engine has`,
      { cause: e },
    );
  if (ryukEnabled() && /pull|registry|manifest|not found|no such image/i.test(messageOf(e)))
    return new FastTestDbError(
      'IMAGE_PULL_FAILED',
      `testcontainers could not pull the image of its reaper, Ryuk (${messageOf(e)}); ${def.image} itself is here`,
      'set TESTCONTAINERS_RYUK_DISABLED=true: fast-test-db removes its own containers (the next run and `fast-test-db clean` remove those a killed process left), or make the Ryuk image available (RYUK_CONTAINER_IMAGE)',
      { cause: e },
    );
  return new FastTestDbError(
    'SERVER_START_FAILED',
    `a ${def.image} container did not start: ${messageOf(e)}`,
    'see the container log in the message above; the image must behave as the official one does (its variables, and the ready line in its log)',
    { cause: e },
  );
}

async function listOurs(tc: any): Promise<Array<{ Id: string; Image: string; Created: number; Labels: Record<string, string> }>> {
  const client = await tc.getContainerRuntimeClient();
  return client.container.dockerode.listContainers({ all: true, filters: { label: [OURS_LABEL] } });
}

/**
 * The containers of ours on the Docker engine testcontainers finds, of `project` only when given;
 * none when testcontainers cannot be loaded or no engine answers.
 */
export async function ourContainers(project?: string, now = Date.now()): Promise<OurContainer[]> {
  let tc: any;
  try {
    tc = await loadTestcontainers();
    const listed = (await listOurs(tc)).filter((c) => project === undefined || c.Labels[PROJECT] === project);
    return listed.map((c) => ({
      id: c.Id.slice(0, 12),
      image: c.Image,
      engine: c.Labels[OURS_LABEL] ?? '?',
      owner: `${c.Labels[OWNER_PID] ?? '?'}@${c.Labels[OWNER_HOST] ?? '?'}`,
      project: c.Labels[PROJECT] ?? '?',
      ended: ownerEnded(c.Labels),
      ageMs: now - c.Created * 1000,
    }));
  } catch {
    return [];
  }
}

/** Removes the containers (of `project`, else every project's) whose owner has ended, or with dryRun only says which. */
export async function removeLeftContainers(
  opts: { dryRun?: boolean; project?: string } = {},
): Promise<Array<OurContainer & { removed: boolean; error?: string }>> {
  const left = (await ourContainers(opts.project)).filter((c) => c.ended === true);
  if (opts.dryRun || left.length === 0) return left.map((c) => ({ ...c, removed: false }));
  const tc = await loadTestcontainers();
  const client = await tc.getContainerRuntimeClient();
  return Promise.all(
    left.map(async (c) => {
      try {
        await client.container.dockerode.getContainer(c.id).remove({ force: true, v: true });
        return { ...c, removed: true };
      } catch (e) {
        return { ...c, removed: false, error: messageOf(e) };
      }
    }),
  );
}

export const testcontainersRunner: ContainerRunner = {
  async start(def, labels) {
    const tc = await loadTestcontainers();
    try {
      const c = await new tc.GenericContainer(def.image)
        .withCommand(def.command)
        .withEnvironment(def.env)
        .withTmpFs(def.tmpfs)
        .withLabels(labels)
        .withExposedPorts(def.port)
        .withWaitStrategy(tc.Wait.forLogMessage(def.readyLog, def.readyLogTimes ?? 1))
        .start();
      return {
        id: c.getId(),
        host: c.getHost(),
        port: c.getMappedPort(def.port),
        stop: async () => void (await c.stop({ remove: true, removeVolumes: true })),
      };
    } catch (e) {
      throw await startError(tc, def, e);
    }
  },
  removeNow(id) {
    // The docker CLI, when there is one; otherwise the next run removes it (its owner has ended).
    spawnSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore', timeout: 10_000 });
  },
  async removeLeft(project) {
    await removeLeftContainers({ project });
  },
};

// ---------------------------------------------------------------------------------------------
// The containers this process owns

/** The exit code of a process ended by a signal, as shells report it (128 + the signal's number). */
const SIGNAL_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * How long other listeners of a signal get to end the process themselves once ours are removed.
 * testcontainers' own listener (signal-exit) only observes and leaves the exit to the others, as
 * we would: without this the process would wait for whatever keeps it alive.
 */
const SIGNAL_GRACE_MS = 1_000;

/**
 * The containers this process started are stopped and removed when its run ends, like our embedded
 * servers: on a normal end (beforeExit), on SIGINT/SIGTERM/SIGHUP, by `stopOwnedContainers()`
 * (runner teardown), and at worst synchronously at exit. After a signal the process ends as the
 * signal would have ended it (exit code 130/143/129).
 */
function hookProcessEnd(): void {
  if (ownedContainers.hooked) return;
  ownedContainers.hooked = true;
  process.once('beforeExit', () => void stopOwnedContainers());
  for (const sig of Object.keys(SIGNAL_CODES) as Array<keyof typeof SIGNAL_CODES>) {
    const onSignal = () => {
      process.exitCode = SIGNAL_CODES[sig];
      void stopOwnedContainers().finally(() => {
        if (process.listenerCount(sig) === 0) return void process.kill(process.pid, sig);
        // Someone else listens: let them finish, then end the process as the signal would have.
        setTimeout(() => {
          process.removeAllListeners(sig);
          process.kill(process.pid, sig);
        }, SIGNAL_GRACE_MS).unref();
      });
    };
    process.once(sig, onSignal);
  }
  process.once('exit', () => {
    for (const { id, removeNow } of ownedContainers.all.values()) removeNow?.(id);
    ownedContainers.all.clear();
  });
}

/** Stops and removes every container this process started; safe to call more than once. */
export async function stopOwnedContainers(): Promise<number> {
  const all = [...ownedContainers.all.values()];
  ownedContainers.all.clear();
  await Promise.all(all.map(({ stop }) => stop().catch(() => undefined)));
  return all.length;
}

/** How many containers this process owns now (for tests and teardown messages). */
export function ownedContainerCount(): number {
  return ownedContainers.all.size;
}

/** Starts a container for `project` (a working directory) from its definition and reads the server's version and settings back. */
export async function startDefinedContainer(
  def: ContainerDefinition,
  runner: ContainerRunner = testcontainersRunner,
  project = process.cwd(),
): Promise<StartedServer> {
  // What killed runs of the project left goes first, beside this start: it must not delay it, nor fail it.
  const swept = runner.removeLeft?.(project).catch(() => undefined);
  let container: RunningContainer;
  try {
    container = await runner.start(def, ownerLabels(def.server.engine, project));
  } catch (e) {
    await swept;
    if (e instanceof FastTestDbError) throw e;
    throw new FastTestDbError(
      'DOCKER_UNAVAILABLE',
      `could not start a ${def.image} container: ${messageOf(e)}`,
      "start a Docker engine, or use server: 'embedded' (the default), which needs no Docker",
      { cause: e },
    );
  }
  const owned = { id: container.id, stop: () => container.stop(), removeNow: runner.removeNow };
  ownedContainers.all.set(container.id, owned);
  hookProcessEnd();
  const started: ServerInfo = {
    ...def.server,
    version: '',
    major: 0,
    provider: 'container',
    owned: true,
    tuned: false,
    host: container.host,
    port: container.port,
  };
  try {
    const engine = engineFor(started.engine);
    if (def.settle) {
      const { version } = await describeServer(engine, started);
      const { connector } = await engine.load();
      await withClient(connector, started, (admin) => def.settle!(admin, version));
    }
    // Read the settings back rather than trust the flags we passed.
    const report = await describeServer(engine, started);
    await swept;
    const info: ServerInfo = {
      ...started,
      flavor: report.flavor,
      version: report.version,
      major: Number(report.version.split('.')[0]) || 0,
      tuned: report.tuned,
    };
    return startedServer('container', info, engine.urls.url, async () => {
      if (!ownedContainers.all.delete(container.id)) return 'not-running';
      await container.stop();
      return 'stopped';
    });
  } catch (e) {
    // A container that never served us is ours to remove now, not at exit.
    ownedContainers.all.delete(container.id);
    await container.stop().catch(() => undefined);
    throw e;
  }
}

/** The definition of `engine`'s container for an entry's options: the engine's own provisioning says it. */
async function definitionFor(engine: EngineName, context: ServerContext): Promise<ContainerDefinition> {
  const { containerDefinition } = await engineFor(engine).provisioning.container();
  return containerDefinition(context.options, context.resolved.image);
}

export const containerProvider: ProviderFactory = ({ engine, context }) => ({
  kind: 'container',
  start: async () => startDefinedContainer(await definitionFor(engine, context), testcontainersRunner, context.cwd),
});

// ---------------------------------------------------------------------------------------------
// For `clean` and `doctor`

/**
 * `clean`'s part: removes our containers whose owner ended, as the servers list of its report has
 * them. Age plays no part: a container whose owner ended is reachable by nobody (only its owner
 * knew it), unlike an orphaned embedded server, which a later run may join.
 */
export async function cleanLeftContainers(opts: {
  dryRun?: boolean;
  /** This project's (its working directory); undefined: every project's. */
  project?: string;
}): Promise<Array<{ dir: string; engine: string; action: 'removed' | 'would remove' | 'kept'; reason: string }>> {
  return (await removeLeftContainers(opts)).map((c) => ({
    dir: `container ${c.id} (${c.image})`,
    engine: c.engine,
    action: opts.dryRun ? 'would remove' : c.removed ? 'removed' : 'kept',
    reason: c.error ? `could not remove it: ${c.error}` : `its owner, process ${c.owner}, has ended`,
  }));
}

/** `doctor`'s part: our containers (of `project`, else every project's), those whose owner ended first (a warning, with the `clean` that removes them). */
export async function containerChecks(
  project: string | undefined,
): Promise<Array<{ id: string; status: 'info' | 'warn'; title: string; detail: string; fix?: string }>> {
  const ours = await ourContainers(project);
  const line = (c: OurContainer) => `${c.id} ${c.image}, started by process ${c.owner}`;
  const left = ours.filter((c) => c.ended === true);
  const live = ours.filter((c) => c.ended !== true);
  return [
    ...(left.length
      ? [
          {
            id: 'left-containers',
            status: 'warn' as const,
            title: `${left.length} container(s) of ours whose process has ended (killed, with Ryuk off)`,
            detail: left.map(line).join('\n    '),
            fix: `fast-test-db clean${project === undefined ? ' --all' : ''}   (removes them; the project's next container start does too)`,
          },
        ]
      : []),
    ...(live.length
      ? [
          {
            id: 'containers',
            status: 'info' as const,
            title: `${live.length} container(s) of ours in use, or started on another machine`,
            detail: live.map(line).join('\n    '),
          },
        ]
      : []),
  ];
}
