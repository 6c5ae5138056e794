/**
 * What the real-container tests need: a Docker engine and images. The images are those
 * FAST_TEST_DB_IMAGE and FAST_TEST_DB_MARIADB_IMAGE name (`.ci/docker` prints both; set them to
 * official images, e.g. postgres:18-alpine and mariadb:11.4, where a registry answers), else those
 * `.ci/docker` built on this engine. The tests are skipped only where no engine answers and
 * `.ci/docker` was not run; where an engine answers but has no images, one test fails saying to
 * run `.ci/docker` and the others are skipped with that reason. CI runs `.ci/docker`: never skipped.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { contextOf } from '../../src/options/context.js';
import { containerProvider } from '../../src/server/providers/container.js';
import { ourContainers } from '../../src/server/providers/container-leftovers.js';
import type { StartedServer } from '../../src/server/provider.js';
import type { EngineName, TestDatabaseOptions } from '../../src/types.js';

const env = process.env;

/** A GET on Docker's API over its unix socket (DOCKER_HOST's, else the usual one); undefined when it does not answer. */
function api(path: string): Promise<{ status: number; body: string } | undefined> {
  const host = env.DOCKER_HOST;
  const socketPath = host?.startsWith('unix://') ? host.slice('unix://'.length) : host ? undefined : '/var/run/docker.sock';
  if (!socketPath || !existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const req = request({ socketPath, path, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** The newest tag of `repo` on the engine: what .ci/docker built. */
async function built(repo: string): Promise<string | undefined> {
  const r = await api(`/images/json?filters=${encodeURIComponent(JSON.stringify({ reference: [repo] }))}`);
  if (r?.status !== 200) return undefined;
  const tags = (JSON.parse(r.body) as Array<{ RepoTags?: string[] | null }>).flatMap((i) => i.RepoTags ?? []);
  return tags.sort().at(-1);
}

const ciDockerRan = Boolean(env.FAST_TEST_DB_IMAGE && env.FAST_TEST_DB_MARIADB_IMAGE);
// A tcp:// DOCKER_HOST is not pinged here: testcontainers finds out.
const engineAnswers = (await api('/_ping'))?.status === 200 || Boolean(env.DOCKER_HOST && !env.DOCKER_HOST.startsWith('unix://'));

/** The images the tests start. */
export const images = {
  postgres: env.FAST_TEST_DB_IMAGE ?? (await built('fast-test-db-ci/postgres')),
  mariadb: env.FAST_TEST_DB_MARIADB_IMAGE ?? (await built('fast-test-db-ci/mariadb')),
};

/** Why no container test can run here: no engine, and .ci/docker was not run. */
export const noEngine =
  engineAnswers || ciDockerRan
    ? undefined
    : 'no Docker engine answers and .ci/docker was not run (eval "$(.ci/docker)" starts one and builds the images)';

/** What is missing where an engine answers: the images (one test fails with it). */
export const imagesMissing =
  noEngine || (images.postgres && images.mariadb)
    ? undefined
    : 'the Docker engine answers but has none of the images the container tests use: run eval "$(.ci/docker)" (it builds them and exports FAST_TEST_DB_IMAGE, FAST_TEST_DB_MARIADB_IMAGE), or set both to images the engine has or can pull';

/** Why the real-container tests are skipped here, or undefined when they run. */
export const skipReason = noEngine ?? imagesMissing;
if (skipReason) console.log(`container tests skipped: ${skipReason}`);

/** Env for a child process that starts containers: testcontainers' Ryuk off, as in CI. */
export const ryukOff = { TESTCONTAINERS_RYUK_DISABLED: 'true' };

/** Our containers whose owner is `pid` on this machine. */
export async function containersOf(pid: number): Promise<string[]> {
  return (await ourContainers()).filter((c) => c.owner.startsWith(`${pid}@`)).map((c) => c.id);
}

/** Starts a container server as an entry would, with these options. */
export function startContainer(engine: EngineName, options: TestDatabaseOptions): Promise<StartedServer> {
  return containerProvider({ engine, context: contextOf(options) }).start();
}
