/**
 * Servers in containers, for machines with a Docker engine. Each engine module describes its
 * container as plain data (unit-tested without Docker); this file turns a description into a
 * running testcontainers GenericContainer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { FastTestDbError, messageOf } from '../../errors.js';
import { loadPeer } from '../../util/peer.js';
import { dialectFor } from '../../engines/index.js';
import type { Engine, ServerInfo, TestDatabaseOptions } from '../../types.js';
import { describeServer } from '../../core/client.js';

export interface ContainerDefinition {
  image: string;
  command: string[];
  env: Record<string, string>;
  /** Mount point -> tmpfs options: the data never touches a disk. */
  tmpfs: Record<string, string>;
  port: number;
  readyLog: RegExp;
  readyLogTimes?: number;
  server: Pick<ServerInfo, 'engine' | 'flavor' | 'user' | 'password' | 'adminDatabase'>;
}

/** Cheap check for a Docker engine: a socket or DOCKER_HOST. testcontainers does the real handshake. */
export function dockerLikelyAvailable(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
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
  start(def: ContainerDefinition): Promise<RunningContainer>;
  /** Last resort at process exit, when nothing asynchronous can run any more. */
  removeNow?(id: string): void;
}

export const testcontainersRunner: ContainerRunner = {
  async start(def) {
    const tc = await loadPeer<any>('testcontainers', "server: 'container'");
    const { GenericContainer, Wait } = tc.GenericContainer ? tc : tc.default;
    const c = await new GenericContainer(def.image)
      .withCommand(def.command)
      .withEnvironment(def.env)
      .withTmpFs(def.tmpfs)
      .withExposedPorts(def.port)
      .withWaitStrategy(Wait.forLogMessage(def.readyLog, def.readyLogTimes ?? 1))
      .start();
    return {
      id: c.getId(),
      host: c.getHost(),
      port: c.getMappedPort(def.port),
      stop: async () => void (await c.stop({ remove: true, removeVolumes: true })),
    };
  },
  removeNow(id) {
    // The docker CLI, when there is one; testcontainers' reaper (Ryuk) removes it otherwise.
    spawnSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore', timeout: 10_000 });
  },
};

/**
 * The containers this process started, stopped and removed when its run ends, like our embedded
 * servers: on a normal end (beforeExit), on SIGINT/SIGTERM/SIGHUP, by `stopOwnedContainers()`
 * (runner teardown), and at worst synchronously at exit.
 */
const owned = new Map<string, { container: RunningContainer; runner: ContainerRunner }>();
let hooked = false;

function hookProcessEnd(): void {
  if (hooked) return;
  hooked = true;
  process.once('beforeExit', () => void stopOwnedContainers());
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      void stopOwnedContainers().finally(() => {
        // Let the signal end the process as it would have without us, unless someone else handles it.
        if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
      });
    };
    process.once(sig, onSignal);
  }
  process.once('exit', () => {
    for (const { container, runner } of owned.values()) runner.removeNow?.(container.id);
    owned.clear();
  });
}

/** Stops and removes every container this process started; safe to call more than once. */
export async function stopOwnedContainers(): Promise<number> {
  const all = [...owned.values()];
  owned.clear();
  await Promise.all(all.map(({ container }) => container.stop().catch(() => undefined)));
  return all.length;
}

/** How many containers this process owns now (for tests and teardown messages). */
export function ownedContainerCount(): number {
  return owned.size;
}

export async function startDefinedContainer(def: ContainerDefinition, runner: ContainerRunner = testcontainersRunner): Promise<ServerInfo> {
  let container: RunningContainer;
  try {
    container = await runner.start(def);
  } catch (e) {
    if (e instanceof FastTestDbError) throw e;
    throw new FastTestDbError(
      'DOCKER_UNAVAILABLE',
      `could not start a ${def.image} container: ${messageOf(e)}`,
      "start a Docker engine, or use server: 'embedded' (the default), which needs no Docker",
      { cause: e },
    );
  }
  owned.set(container.id, { container, runner });
  hookProcessEnd();
  const info: ServerInfo = {
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
    // Read the settings back rather than trust the flags we passed.
    const report = await describeServer(await dialectFor(info.engine), info);
    return {
      ...info,
      flavor: report.flavor,
      version: report.version,
      major: Number(report.version.split('.')[0]) || 0,
      tuned: report.tuned,
    };
  } catch (e) {
    // A container that never served us is ours to remove now, not at exit.
    owned.delete(container.id);
    await container.stop().catch(() => undefined);
    throw e;
  }
}

export async function startContainer(engine: Engine, options: TestDatabaseOptions): Promise<ServerInfo> {
  if (engine === 'postgres') return (await import('../../engines/postgres/container.js')).startPostgresContainer(options);
  return (await import('../../engines/mysql/container.js')).startMysqlContainer(options);
}
