/** The run directory's notes: a worker's later files export what its first file noted, or take the whole path. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Handoff, WorkerTarget } from '../../src/types.js';
import {
  alreadyCloned,
  endAhead,
  exportForLaterFile,
  forgetClone,
  noteAhead,
  noteClone,
  noteLaterFiles,
} from '../../src/runners/shared/notes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function handoff(rest: Partial<Handoff> = {}): Handoff {
  const dir = mkdtempSync('/tmp/ftdb-notes-');
  dirs.push(dir);
  return {
    v: 1,
    run: 'r1',
    engine: 'postgres',
    prefix: 'ftdb',
    server: {
      host: '127.0.0.1',
      port: 5999,
      user: 'u',
      password: 'p',
      engine: 'postgres',
      version: '18.4',
      owned: true,
    } as Handoff['server'],
    template: 'ftdb_tpl_x',
    fingerprint: 'x',
    seeded: [],
    envVars: ['APP_DATABASE_URL', 'DATABASE_URL'],
    appEnv: { DB_NAME: 'database', DB_PORT: 'port' },
    dir,
    isolation: 'worker',
    urlPattern: 'postgres://u:p@127.0.0.1:5999/__FAST_TEST_DB_NAME__',
    ...rest,
  };
}

const target: WorkerTarget = {
  name: 'ftdb_r1_w2',
  worker: '2',
  url: 'postgres://u:p@127.0.0.1:5999/ftdb_r1_w2',
  connection: { host: '127.0.0.1', port: 5999, user: 'u', password: 'p', database: 'ftdb_r1_w2' },
};

it("a later file of the worker exports the first file's URL under every name, and nothing for another worker", () => {
  const h = handoff();
  noteClone(h, target.name);
  noteLaterFiles(h, '2', target);
  const env: NodeJS.ProcessEnv = {};
  expect(exportForLaterFile(h, '2', env)).toBe(true);
  expect(env).toEqual({ APP_DATABASE_URL: target.url, DATABASE_URL: target.url, DB_NAME: 'ftdb_r1_w2', DB_PORT: '5999' });
  const other: NodeJS.ProcessEnv = {};
  expect(exportForLaterFile(h, '3', other)).toBe(false);
  expect(other).toEqual({});
});

it('a database a test dropped (its clone note gone) sends the later file down the whole path', () => {
  const h = handoff();
  noteClone(h, target.name);
  noteLaterFiles(h, '2', target);
  forgetClone(h, target.name);
  expect(alreadyCloned(h, target.name)).toBe(false);
  const env: NodeJS.ProcessEnv = {};
  expect(exportForLaterFile(h, '2', env)).toBe(false);
  expect(env).toEqual({});
});

it('isolation per file or per test, and CPU pairing, leave no later-file note: their hooks run in every file', () => {
  for (const rest of [{ isolation: 'file' }, { isolation: 'test' }, { cpus: [0, 1] }] as Partial<Handoff>[]) {
    const h = handoff(rest);
    noteClone(h, target.name);
    noteLaterFiles(h, '2', target);
    expect(exportForLaterFile(h, '2', {})).toBe(false);
  }
});

it('an unreadable note is no shortcut', () => {
  const h = handoff();
  noteClone(h, target.name);
  noteLaterFiles(h, '2', target);
  rmSync(join(h.dir, 'worker-2.json'));
  expect(exportForLaterFile(h, '2', {})).toBe(false);
});

it('a first file whose database the main process clones ahead exports its URL at once, and is ready when that clone ends', async () => {
  const h = handoff();
  noteAhead(h, target.name);
  noteLaterFiles(h, '2', target);
  const env: NodeJS.ProcessEnv = {};
  const later = exportForLaterFile(h, '2', env);
  expect(later).toBeInstanceOf(Promise);
  expect(env.APP_DATABASE_URL).toBe(target.url);
  let settled: boolean | undefined;
  void (later as Promise<boolean>).then((v) => (settled = v));
  await new Promise((r) => setTimeout(r, 30));
  expect(settled).toBeUndefined();
  noteClone(h, target.name);
  endAhead(h, target.name);
  expect(await later).toBe(true);
});

it('a clone ahead that ended without the database, or whose process is gone, sends the file down the whole path', async () => {
  const failed = handoff();
  noteAhead(failed, target.name);
  noteLaterFiles(failed, '2', target);
  const later = exportForLaterFile(failed, '2', {});
  endAhead(failed, target.name);
  expect(await later).toBe(false);

  const orphaned = handoff();
  noteLaterFiles(orphaned, '2', target);
  writeFileSync(join(orphaned.dir, `${target.name}.ahead`), String(spawnSync('true').pid));
  const env: NodeJS.ProcessEnv = {};
  expect(exportForLaterFile(orphaned, '2', env)).toBe(false);
  expect(env).toEqual({});
});
