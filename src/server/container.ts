/**
 * Servers in containers, for machines with a Docker engine. Each engine module describes its
 * container as plain data (unit-tested without Docker); this file turns a description into a
 * running testcontainers GenericContainer.
 */
import { existsSync } from 'node:fs';
import { FastTestDbError, messageOf } from '../errors.js';
import { loadPeer } from '../peer.js';
import { dialectFor } from '../dialect/index.js';
import type { Engine, ServerInfo, TestDatabaseOptions } from '../types.js';

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

const started: Array<{ stop(): Promise<unknown> }> = [];

export async function startDefinedContainer(def: ContainerDefinition): Promise<ServerInfo> {
  const tc = await loadPeer<any>('testcontainers', "server: 'container'");
  const { GenericContainer, Wait } = tc.GenericContainer ? tc : tc.default;
  let container;
  try {
    container = await new GenericContainer(def.image)
      .withCommand(def.command)
      .withEnvironment(def.env)
      .withTmpFs(def.tmpfs)
      .withExposedPorts(def.port)
      .withWaitStrategy(Wait.forLogMessage(def.readyLog, def.readyLogTimes ?? 1))
      .start();
  } catch (e) {
    throw new FastTestDbError('DOCKER_UNAVAILABLE', `could not start a ${def.image} container: ${messageOf(e)}`, "start a Docker engine, or use server: 'embedded' (the default), which needs no Docker", { cause: e });
  }
  started.push(container);
  const info: ServerInfo = {
    ...def.server,
    version: '',
    major: 0,
    provider: 'container',
    owned: true,
    tuned: false,
    host: container.getHost(),
    port: container.getMappedPort(def.port),
  };
  // Read the settings back rather than trust the flags we passed.
  const dialect = await dialectFor(info.engine);
  const admin = await dialect.connect(info);
  try {
    const report = await dialect.describe(admin, info);
    return { ...info, flavor: report.flavor, version: report.version, major: Number(report.version.split('.')[0]) || 0, tuned: report.tuned };
  } finally {
    await admin.close();
  }
}

export async function startContainer(engine: Engine, options: TestDatabaseOptions): Promise<ServerInfo> {
  if (engine === 'postgres') return (await import('./container-postgres.js')).startPostgresContainer(options);
  return (await import('./container-mysql.js')).startMysqlContainer(options);
}
