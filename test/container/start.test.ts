/**
 * Starting containers on a real Docker engine, with the images .ci/docker builds: the server's
 * version is read from the running server (an image named like `localhost:5000/x:9` is not a
 * major 5000 or 9 server), the settings that depend on it are applied, the flags are read back; a
 * missing image and a missing Ryuk image each give IMAGE_PULL_FAILED saying which and what to do.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTestcontainers } from '../../src/server/providers/container-peer.js';
import { withClient } from '../../src/engines/connect.js';
import { engineFor } from '../../src/engines/index.js';
import { images, imagesMissing, noEngine, ryukOff, skipReason, startContainer } from './helpers.js';

process.env.TESTCONTAINERS_RYUK_DISABLED ??= ryukOff.TESTCONTAINERS_RYUK_DISABLED;
// A name whose tag and registry port say nothing true about the server's major.
const renamed = 'localhost:5000/fast-test-db-renamed:9';

describe.skipIf(noEngine)('the images of the container tests', () => {
  it('are on the Docker engine (built by .ci/docker, or named by FAST_TEST_DB_IMAGE and FAST_TEST_DB_MARIADB_IMAGE)', () => {
    expect(imagesMissing, imagesMissing).toBeUndefined();
  });
});

describe.skipIf(skipReason)('containers on a real Docker engine', () => {
  afterAll(async () => {
    const client = await (await loadTestcontainers()).getContainerRuntimeClient();
    await client.container.dockerode
      .getImage(renamed)
      .remove()
      .catch(() => undefined);
  });

  it('PostgreSQL: the major comes from the running server, not from the image name', async () => {
    const tc = await loadTestcontainers();
    const client = await tc.getContainerRuntimeClient();
    const source = images.postgres!;
    if (!(await client.image.exists(tc.ImageName.fromString(source)))) await client.image.pull(tc.ImageName.fromString(source));
    const [repo, tag] = renamed.split(/:(?=[^/]*$)/);
    await client.container.dockerode.getImage(source).tag({ repo, tag });

    const server = await startContainer('postgres', { image: renamed });
    try {
      const actual = Number(server.info.version.split('.')[0]);
      expect(actual).toBeGreaterThanOrEqual(13);
      expect(server.info).toMatchObject({ provider: 'container', owned: true, tuned: true, major: actual });
      const settings = await withClient((await engineFor('postgres').load()).connector, server.info, (admin) =>
        admin.query<{ name: string; setting: string }>(
          "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'wal_level', 'log_startup_progress_interval', 'data_directory') ORDER BY name",
        ),
      );
      const by = Object.fromEntries(settings.map((s) => [s.name, s.setting]));
      expect(by).toMatchObject({ fsync: 'off', wal_level: 'minimal', data_directory: '/var/lib/postgresql/data' });
      // A setting of majors 15 and later, applied once the server said its major.
      if (actual >= 15) expect(by.log_startup_progress_interval).toBe('0');
      expect(server.url()).toMatch(new RegExp(`^postgres://postgres@[^/]+:${server.info.port}/postgres$`));
    } finally {
      expect(await server.stop()).toBe('stopped');
      expect(await server.stop()).toBe('stopped');
    }
  }, 120_000);

  it('a missing image: IMAGE_PULL_FAILED naming it, with the fix', async () => {
    const image = 'fast-test-db-ci/absent:1';
    const e = await startContainer('postgres', { image }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'IMAGE_PULL_FAILED' });
    expect((e as Error).message).toContain(image);
    expect((e as { fix: string }).fix).toContain('FAST_TEST_DB_IMAGE');
  }, 60_000);

  it("Ryuk on, and its image missing: IMAGE_PULL_FAILED that says it is Ryuk's and how to go without it", () => {
    // In a process of its own: testcontainers starts its reaper once per process.
    const script = `
      import { startContainer } from './test/container/helpers.ts';
      const e = await startContainer('postgres', { image: process.env.IMAGE }).then(async (s) => { await s.stop(); return { code: 'started' }; }, (x) => x);
      console.log(JSON.stringify({ code: e.code, message: e.message, fix: e.fix }));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: `${import.meta.dirname}/../..`,
      env: {
        ...process.env,
        TESTCONTAINERS_RYUK_DISABLED: 'false',
        RYUK_CONTAINER_IMAGE: 'fast-test-db-ci/absent-ryuk:1',
        IMAGE: images.postgres,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const said = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { code?: string; message?: string; fix?: string };
    expect(said.code, r.stderr).toBe('IMAGE_PULL_FAILED');
    expect(said.message).toMatch(/Ryuk/);
    expect(said.fix).toContain('TESTCONTAINERS_RYUK_DISABLED=true');
  }, 60_000);
});
