/**
 * Runs the CLI from source (`node --import tsx src/cli/index.ts`) the way a user's shell would,
 * with every server it starts kept in a data root of the test's own, so that tests never see or
 * touch servers of other runs on the machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeDataRoot } from '../core/helpers.js';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ENTRY = join(REPO, 'src/cli/index.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A private data root for servers, and the env that points the CLI (and this process) at it. */
export function isolatedEnv(label: string): { root: string; env: NodeJS.ProcessEnv; cleanup(): Promise<void> } {
  const root = mkdtempSync(`/dev/shm/ftdb-${label}-`);
  // Servers run as an unprivileged account when we are root: it must be able to enter the root.
  chmodSync(root, 0o755);
  // A cache of its own too: a warm copy an earlier test run saved must not hide a template build.
  const env: NodeJS.ProcessEnv = { ...process.env, FAST_TEST_DB_DATA_ROOT: root, FAST_TEST_DB_CACHE_DIR: `${root}/cache`, NO_COLOR: '1' };
  // Nothing from the machine or the outer runner may leak in: no URL, no worker or run identity.
  for (const k of Object.keys(env))
    if (
      k === 'TEST_DATABASE_URL' ||
      k === 'FAST_TEST_DB_URL' ||
      k === 'FORCE_COLOR' ||
      k.startsWith('VITEST') ||
      k === 'FAST_TEST_DB_SERVER' ||
      k === 'JEST_WORKER_ID'
    )
      delete env[k];
  return {
    root,
    env,
    async cleanup() {
      await removeDataRoot(root);
    },
  };
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd = REPO): ChildProcess & { out: () => string; err: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { out: () => string; err: () => string };
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.out = () => stdout;
  child.err = () => stderr;
  return child;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, opts: { timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  const child = spawnCli(args, env, opts.cwd);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  return new Promise((res) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      // Let the pipes drain.
      setImmediate(() => res({ code, stdout: child.out(), stderr: child.err() }));
    }),
  );
}

/** Runs a script of test/fixtures/cli/ through tsx and returns its stdout; throws when it fails. */
export function runFixture(script: string, env: NodeJS.ProcessEnv, cwd = REPO): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'test/fixtures/cli', script)], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((res, rej) =>
    child.once('exit', (code) =>
      setImmediate(() => (code === 0 ? res(out) : rej(new Error(`${script} exited with ${code}:\n${out}\n${err}`)))),
    ),
  );
}

/** Resolves once `predicate` holds for the child's stdout. */
export async function waitForOutput(
  child: ReturnType<typeof spawnCli>,
  predicate: (stdout: string) => boolean,
  timeoutMs = 60_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate(child.out())) {
    if (child.exitCode !== null)
      throw new Error(`the CLI exited with ${child.exitCode} before it was ready:\n${child.out()}\n${child.err()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for CLI output:\n${child.out()}\n${child.err()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child.out();
}

export function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));
}

/** Every JSON line of an output, parsed. */
export function jsonLines<T = Record<string, unknown>>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as T);
}
