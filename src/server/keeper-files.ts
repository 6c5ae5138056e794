/** The files through which the registry, the keeper and `clean` talk about one server. */
import { join } from 'node:path';
import type { LaunchPlan } from './launch.js';

export type KeeperPlan = Pick<LaunchPlan, 'init' | 'server' | 'stopSignal' | 'cleanup' | 'snapshot' | 'initCache'> & {
  reuse: boolean;
  idleTimeoutMs: number;
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
