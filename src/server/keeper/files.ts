/** The files through which the registry, the keeper and `clean` talk about one server. */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LaunchPlan } from '../os/launch.js';

export type KeeperPlan = Pick<LaunchPlan, 'init' | 'server' | 'stopSignal' | 'cleanup' | 'snapshot' | 'initCache'> & {
  reuse: boolean;
  idleTimeoutMs: number;
  /** How long the server outlives its last client when not reused: the next test file may want it. */
  graceMs: number;
  /** The project directory (cwd) that started it: `clean` and `doctor` keep to their own project. */
  project: string;
};

export interface KeeperStatus {
  phase: 'init' | 'running' | 'failed' | 'stopping' | 'stopped';
  keeperPid: number;
  serverPid?: number;
  error?: string;
}

export const keeperFiles = (dir: string) => ({
  plan: join(dir, 'plan.json'),
  status: join(dir, 'status.json'),
  state: join(dir, 'state.json'),
  log: join(dir, 'server.log'),
  leases: join(dir, 'leases'),
  lock: join(dir, 'lock'),
});

/** A JSON file another process may be writing or removing: undefined when absent or unreadable. */
export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Written whole and renamed into place: a reader in another process never sees half of it. For our
 * uid only: some (a runner's handoff) hold a server's password.
 */
export function writeJson(file: string, value: unknown): void {
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify(value), { mode: 0o600 });
  renameSync(partial, file);
}

/** The names in a folder another process may be removing as we look: none once it is gone. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
