/**
 * One probe (start-probe.mjs, peer-probe.mjs) in a fresh process: its last line of output, as
 * JSON. `loader`: under tsx's hooks, as a suite whose test files tsx runs would load the package.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { thirtyTableSchema } from './schema30.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface ProbeResult {
  importMs: number;
  firstQueryMs: number;
  built?: boolean;
  stateDir?: string;
}

export function runProbe(script: 'start-probe.mjs' | 'peer-probe.mjs', env: Record<string, string>, loader = false): Promise<ProbeResult> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [...(loader ? ['--import', 'tsx'] : []), join(ROOT, 'bench/lib', script)], {
      cwd: ROOT,
      env: { ...process.env, BENCH_SCHEMA: thirtyTableSchema(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) =>
      code === 0 ? res(JSON.parse(out.trim().split('\n').pop()!)) : rej(new Error(err.trim().slice(0, 400) || `probe exited ${code}`)),
    );
  });
}
