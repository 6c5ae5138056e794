/**
 * What the real-container tests need: a Docker engine and the images `.ci/docker` builds (it
 * prints FAST_TEST_DB_IMAGE and FAST_TEST_DB_MARIADB_IMAGE). They are skipped only where no engine
 * answers and `.ci/docker` was not run; in CI, which runs it, they always run, and fail when the
 * engine is down.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { contextOf } from '../../src/options/context.js';
import { containerProvider, ourContainers } from '../../src/server/providers/container.js';
import type { StartedServer } from '../../src/server/provider.js';
import type { Engine, TestDatabaseOptions } from '../../src/types.js';

/** Whether Docker's API answers /_ping on its usual socket (or DOCKER_HOST's unix socket). */
function ping(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  const socketPath = host?.startsWith('unix://') ? host.slice('unix://'.length) : host ? undefined : '/var/run/docker.sock';
  if (!socketPath || !existsSync(socketPath)) return Promise.resolve(Boolean(host));
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

const ciDockerRan = Boolean(process.env.FAST_TEST_DB_IMAGE && process.env.FAST_TEST_DB_MARIADB_IMAGE);
const engineAnswers = await ping();

/** Why the real-container tests are skipped here, or undefined when they run. */
export const skipReason =
  engineAnswers || ciDockerRan
    ? undefined
    : 'no Docker engine answers and .ci/docker was not run (run: eval "$(.ci/docker)" to start one and build the images)';
if (skipReason) console.log(`container tests skipped: ${skipReason}`);

/** The images: those .ci/docker built, else the library's defaults (pulled from a registry). */
export const images = {
  postgres: process.env.FAST_TEST_DB_IMAGE,
  mariadb: process.env.FAST_TEST_DB_MARIADB_IMAGE ?? 'mariadb:11.4',
};

/** Env for a child process that starts containers: testcontainers' Ryuk off, as in CI. */
export const ryukOff = { TESTCONTAINERS_RYUK_DISABLED: 'true' };

/** Our containers whose owner is `pid` on this machine. */
export async function containersOf(pid: number): Promise<string[]> {
  return (await ourContainers()).filter((c) => c.owner.startsWith(`${pid}@`)).map((c) => c.id);
}

/** Starts a container server as an entry would, with these options. */
export function startContainer(engine: Engine, options: TestDatabaseOptions): Promise<StartedServer> {
  return containerProvider({ engine, context: contextOf(options) }).start();
}
