/** A whole run of a test runner as a user starts it: spawned, its output kept, timed from spawn to exit. */
import { spawn } from 'node:child_process';

export interface TimedRun {
  code: number | null;
  /** stdout and stderr, interleaved as they came. */
  output: string;
  /** From spawn to the process's exit. */
  ms: number;
}

export function timedRun(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<TimedRun> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let ms = 0;
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  child.once('exit', () => (ms = performance.now() - started));
  // 'close' comes after 'exit' once the pipes are drained: the output is whole then.
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output, ms })));
}
