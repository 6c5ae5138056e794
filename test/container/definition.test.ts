/**
 * Containers we start are stopped and removed when their run ends. The ownership wiring is tested
 * here through the container runner interface, with a runner whose "container" is a real embedded
 * server (the library connects to it and reads its settings back as it would a container's), so
 * that it runs on every machine; test/container/ runs the same paths on a real Docker engine.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/core/database.js';
import {
  ownedContainerCount,
  startDefinedContainer,
  stopOwnedContainers,
  type ContainerRunner,
} from '../../src/server/providers/container.js';
import { containerDefinition } from '../../src/engines/postgres/container.js';
import { freePort } from '../../src/server/registry.js';
import type { ServerInfo } from '../../src/types.js';
import { privateDataRoot, removeDataRoot, ROOT } from '../core/helpers.js';

const dataRoot = privateDataRoot('container');
const work = mkdtempSync(join('/tmp', 'ftdb-container-'));
let server: ServerInfo;

beforeAll(async () => {
  server = await startServer({ dataRoot });
});
afterAll(async () => {
  await removeDataRoot(dataRoot);
  rmSync(work, { recursive: true, force: true });
});

/** The definition a real container gets, with the password of the embedded server that stands in for it. */
function definition(): ReturnType<typeof containerDefinition> {
  const def = containerDefinition({}, undefined);
  return { ...def, server: { ...def.server, password: server.password } };
}

function runnerAt(host: string, port: number, stops: string[]): ContainerRunner {
  let n = 0;
  return {
    async start() {
      const id = `fake-${++n}`;
      return { id, host, port, stop: async () => void stops.push(id) };
    },
  };
}

describe('containers we start', () => {
  it('are owned until stopOwnedContainers() stops and removes each of them once', async () => {
    const stops: string[] = [];
    const runner = runnerAt(server.host, server.port, stops);
    const { info } = await startDefinedContainer(definition(), runner);
    expect(info.provider).toBe('container');
    expect(info.owned).toBe(true);
    expect(info.tuned).toBe(true); // read back from the server, not assumed
    await startDefinedContainer(definition(), runner);
    expect(ownedContainerCount()).toBe(2);
    expect(await stopOwnedContainers()).toBe(2);
    expect(stops.sort()).toEqual(['fake-1', 'fake-2']);
    expect(await stopOwnedContainers()).toBe(0);
    expect(stops).toHaveLength(2);
  });

  it('one that never answers is removed at once, and the error says why', async () => {
    const stops: string[] = [];
    const port = await freePort(); // nothing listens there
    await expect(startDefinedContainer(definition(), runnerAt('127.0.0.1', port, stops))).rejects.toMatchObject({
      code: 'UNREACHABLE',
    });
    expect(stops).toEqual(['fake-1']);
    expect(ownedContainerCount()).toBe(0);
  });

  it('a runner that cannot start one gives DOCKER_UNAVAILABLE', async () => {
    const failing: ContainerRunner = { start: async () => Promise.reject(new Error('connect ENOENT /var/run/docker.sock')) };
    await expect(startDefinedContainer(definition(), failing)).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
  });

  for (const end of ['natural', 'sigterm'] as const) {
    it(`are stopped when the process that started them ends (${end})`, async () => {
      const stopLog = join(work, `${end}.log`);
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/fixtures/core/container-owner.mts')], {
        cwd: ROOT,
        env: { ...process.env, HOST: server.host, PORT: String(server.port), PASSWORD: server.password, STOP_LOG: stopLog, END: end },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (err += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.once('exit', (code, signal) => r({ code, signal })),
      );
      while (!out.includes('\n')) {
        if (child.exitCode !== null) throw new Error(`fixture exited: ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(JSON.parse(out).provider).toBe('container');
      if (end === 'sigterm') child.kill('SIGTERM');
      const { code, signal } = await exited;
      expect(existsSync(stopLog) ? readFileSync(stopLog, 'utf8') : '').toBe('stopped c1\n');
      // A signal ends the process as it would have without us: by the signal (143 in a shell).
      expect(end === 'sigterm' ? signal : code).toBe(end === 'sigterm' ? 'SIGTERM' : 0);
    });
  }
});
