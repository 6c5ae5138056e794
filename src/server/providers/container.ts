/**
 * Servers in containers, for machines with a Docker engine. Each engine module describes its
 * container as plain data (unit-tested without Docker); this file turns a description into a
 * running testcontainers GenericContainer and owns it until its process ends. What a killed
 * process left is found through the labels of container-leftovers.ts; testcontainers is loaded
 * through container-peer.ts.
 */
import { spawnSync } from 'node:child_process';
import { FastTestDbError, messageOf } from '../../errors.js';
import { engineFor } from '../../engines/index.js';
import type { ContainerDefinition } from '../../engines/engine.js';
import { describeServer, withClient } from '../../engines/connect.js';
import type { EngineName, ServerInfo } from '../../types.js';
import { ownedContainers } from '../../state.js';
import { ownerLabels, removeLeftContainers } from './container-leftovers.js';
import { loadTestcontainers } from './container-peer.js';
import { startedServer, type ProviderFactory, type ServerContext, type StartedServer } from '../provider.js';

export type { ContainerDefinition };

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
  prepare: async () => void (await engineFor(engine).provisioning.container()),
  start: async () => startDefinedContainer(await definitionFor(engine, context), testcontainersRunner, context.cwd),
});

// ---------------------------------------------------------------------------------------------
// For `clean` and `doctor`
