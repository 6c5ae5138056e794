import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import pg from 'pg';
import { listDir } from '../../src/server/os/shared-files.js';
import { argsOf, otherPids } from '../../src/server/os/processes.js';
import { stopOwnedServer } from '../../src/server/registry.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * A private data root, so that a test gets its own server instead of the suite's shared one. Most
 * files make theirs as they load, so a run filtered with -t makes roots that no test uses: each is
 * noted in the suite run's list (vitest.config.ts), and the suite's end removes those still empty.
 */
export function privateDataRoot(tag: string): string {
  const dir = mkdtempSync(join('/dev/shm', `ftdb-test-${tag}-`));
  chmodSync(dir, 0o755); // the server runs as an unprivileged user when we are root: it must reach its data
  const list = process.env.TEST_SUITE_PRIVATE_ROOTS;
  if (list) writeFileSync(join(list, basename(dir)), '');
  return dir;
}

/**
 * Stops every server we own under a data root, then removes it. A keeper may still be deleting a
 * server's data when we get here, so removal retries instead of failing on ENOTEMPTY.
 */
export async function removeDataRoot(dataRoot: string): Promise<void> {
  for (const userDir of listDir(dataRoot))
    for (const server of listDir(join(dataRoot, userDir))) await stopOwnedServer(join(dataRoot, userDir, server)).catch(() => undefined);
  // A stopped server's warm copy is written by a process of its own (its command line names the
  // data root): let it finish, or it writes into a cache a test is removing.
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && savers(dataRoot)) await new Promise((r) => setTimeout(r, 100));
  rmSync(dataRoot, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

function savers(dataRoot: string): boolean {
  return otherPids().some((pid) => {
    const args = argsOf(pid);
    return args?.includes('--save-warm-copy') && args.some((a) => a.includes(dataRoot));
  });
}

/** A worker process (fixture script) whose first stdout line is its JSON report. */
/** `cwd`: the project the worker is run in (a folder with this repository's node_modules linked in). */
export function startWorker(
  env: Record<string, string>,
  fixture = 'test/fixtures/core/worker.mts',
  cwd = ROOT,
): { child: ChildProcess; line: Promise<any>; exited: Promise<unknown>; stderr: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, fixture)], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const line = new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`worker exited ${code}: ${err}`));
    });
  });
  const exited = new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  return { child, line, exited, stderr: () => err };
}

export async function runWorker(env: Record<string, string>): Promise<any> {
  const { line, exited } = startWorker(env);
  const result = await line;
  await exited;
  return result;
}

/** A worker run to its end in project `cwd`, with what it wrote to stderr (its DEBUG log). */
export async function runWorkerIn(cwd: string, env: Record<string, string>): Promise<{ result: any; stderr: string }> {
  const { line, exited, stderr } = startWorker(env, undefined, cwd);
  const result = await line;
  await exited;
  return { result, stderr: stderr() };
}

export function migrateCount(counterFile: string): number {
  return existsSync(counterFile) ? readFileSync(counterFile, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** A pid the keepers under a data root record in their status: their server's, or their own. */
function statusPids(dataRoot: string, which: 'serverPid' | 'keeperPid'): number[] {
  const pids: number[] = [];
  for (const userDir of listDir(dataRoot).map((d) => join(dataRoot, d)))
    for (const server of listDir(userDir)) {
      try {
        const s = JSON.parse(readFileSync(join(userDir, server, 'status.json'), 'utf8'));
        if (s[which]) pids.push(s[which]);
      } catch {
        // no status yet, gone, or being written: no pid to report
      }
    }
  return pids;
}

/** The server process pids recorded by keepers under a data root. */
export const serverPids = (dataRoot: string): number[] => statusPids(dataRoot, 'serverPid');

/** The keepers' own pids: a keeper outlives its server while it puts the data directory aside. */
export const keeperPids = (dataRoot: string): number[] => statusPids(dataRoot, 'keeperPid');

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

/** Runs one statement on a connection of its own to `url`; returns its rows. */
export async function sql(url: string, text: string, values?: unknown[]): Promise<any[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}
