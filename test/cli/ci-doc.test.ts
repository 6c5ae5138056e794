/**
 * docs/ci.md's `start` step and its stop step, run as written by a shell, with `npx` a wrapper
 * process as npm's is (the pid a shell's `$!` gets is not the CLI's): after the stop step the
 * server is gone and the `start` process has exited.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { listOwnedServers } from '../../src/server/keeper/server-state.js';
import { contextOf } from '../../src/options/context.js';
import { isolatedEnv, jsonLines, REPO } from './cli.js';

const iso = isolatedEnv('ci-doc');
afterAll(() => iso.cleanup());

/** The yaml block under a heading of docs/ci.md. */
function yamlUnder(heading: string): string {
  const doc = readFileSync(join(REPO, 'docs/ci.md'), 'utf8');
  const from = doc.indexOf(heading);
  expect(from).toBeGreaterThan(0);
  return /```yaml\n([\s\S]*?)```/.exec(doc.slice(from))![1]!;
}

/** The `run:` script of the step named `name`: a block (`run: |`) or one line. */
function runOf(yaml: string, name: string): string {
  const lines = yaml.split('\n');
  const at = lines.findIndex((l) => l.trim() === `- name: ${name}`);
  expect(at, name).toBeGreaterThanOrEqual(0);
  const run = lines.slice(at).find((l) => /^\s*run:/.test(l))!;
  if (!run.trim().endsWith('|')) return run.replace(/^\s*run:\s*/, '');
  const indent = run.search(/\S/) + 2;
  const body: string[] = [];
  for (const l of lines.slice(lines.indexOf(run) + 1)) {
    if (l.trim() && l.search(/\S/) < indent) break;
    body.push(l.slice(indent));
  }
  return body.join('\n');
}

test('the documented start step and stop step: the server is up between them and gone after', async () => {
  const yaml = yamlUnder('### With a `start` step');
  const work = join(iso.root, 'job');
  const bin = join(iso.root, 'bin');
  mkdirSync(work);
  mkdirSync(bin);
  // A project with the package installed: the CLI (and the keeper it spawns) run from source through tsx.
  symlinkSync(join(REPO, 'node_modules'), join(work, 'node_modules'));
  // npx runs the package's bin as its child: `$!` is the wrapper's pid, as in CI.
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = fast-test-db ] && shift\n"${process.execPath}" --import tsx "${join(REPO, 'src/cli/index.ts')}" "$@"\n`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
  const githubEnv = join(work, 'github.env');
  const env = { ...iso.env, PATH: `${bin}:${process.env.PATH}`, GITHUB_ENV: githubEnv };
  const step = (script: string) => spawnSync('sh', ['-ec', script], { cwd: work, env, encoding: 'utf8', timeout: 90_000 });

  const start = step(runOf(yaml, 'Test database'));
  expect(start.status, readFileSync(join(work, 'ftdb.log'), 'utf8')).toBe(0);
  const url = /^DATABASE_URL=(.*)$/m.exec(readFileSync(githubEnv, 'utf8'))![1]!;
  const client = new pg.Client(url);
  await client.connect();
  expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  await client.end();
  const scope = contextOf({ dataRoot: iso.root });
  expect(listOwnedServers(scope, { project: work }).map((s) => s.state)).toEqual(['running']);

  const stop = step(runOf(yaml, 'Stop the test database'));
  expect(stop.status, stop.stderr + stop.stdout).toBe(0);
  expect(stop.stdout).toContain('stopped 1 server(s) of this project');
  // The start process saw its server go the way Ctrl-C stops it, and said so last.
  expect(jsonLines<{ event: string }>(readFileSync(join(work, 'ftdb.json'), 'utf8')).at(-1)).toEqual({ event: 'stopped' });
  expect(listOwnedServers(scope, { project: work }).filter((s) => s.state !== 'stopped')).toEqual([]);
  const after = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await expect(after.connect()).rejects.toThrow();
}, 180_000);

test('no stop step in docs/ci.md kills a pid', () => {
  const doc = readFileSync(join(REPO, 'docs/ci.md'), 'utf8');
  const yaml = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
  expect(yaml).not.toMatch(/\bkill\b/);
  expect(yaml.match(/npx fast-test-db stop/g)?.length).toBe(2);
});
