/** The files through which the registry, the keeper and `clean` talk about one server. */
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

/** What the registry writes to a keeper's input once plan.json is whole; anything else, or nothing, and the keeper exits. */
export const PLAN_WRITTEN = 'plan written\n';

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
