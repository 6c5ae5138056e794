/**
 * Runs the user's `migrate` into a template: a function, or a command (`'npm run migrate'`) run in
 * the project's directory with the template's URL in DATABASE_URL and the configured env var names.
 * Either one ends within the migrate timeout or fails with MIGRATION_TIMEOUT, naming the template.
 */
import { spawn } from 'node:child_process';
import { FastTestDbError } from '../errors.js';
import { logger } from '../util/log.js';
import { DEFAULT_ENV_VAR } from '../options/resolve.js';
import type { ConnectionOptions, MigrateFn, ServerInfo } from '../types.js';

const log = logger('template');

/** What a failed command printed, at most this much of its end, in the error. */
const OUTPUT_KEPT = 8_000;

export interface MigrateJob {
  migrate: MigrateFn | string;
  url: string;
  ctx: { database: string; server: ServerInfo; connection: ConnectionOptions };
  timeoutMs: number;
  /** Env var names the command also finds the URL in (the runners' envVar). */
  envVars: readonly string[];
  /** The environment the command runs in (the entry's copy), with the URL's vars set on top. */
  env: Readonly<NodeJS.ProcessEnv>;
  cwd?: string;
}

export function timedOut(template: string, timeoutMs: number, what: string, output = ''): FastTestDbError {
  return new FastTestDbError(
    'MIGRATION_TIMEOUT',
    `${what} did not finish within ${formatMs(timeoutMs)} while building template ${template}; nothing was cached${shown(output)}`,
    'look for what it waits on (a promise never resolved, a lock, a prompt, a server it cannot reach); if it is only slow, raise migrateTimeoutMs (env FAST_TEST_DB_MIGRATE_TIMEOUT_MS)',
  );
}

const formatMs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** Runs `job.migrate`; a function's own error is thrown as it is, for the caller to wrap. */
export async function runMigrate(job: MigrateJob): Promise<void> {
  if (typeof job.migrate === 'string') return runCommand(job, job.migrate);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(job.ctx.database, job.timeoutMs, 'migrate')), job.timeoutMs);
  });
  try {
    await Promise.race([job.migrate(job.url, job.ctx), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function runCommand(job: MigrateJob, command: string): Promise<void> {
  const template = job.ctx.database;
  const env: NodeJS.ProcessEnv = { ...job.env };
  for (const name of new Set([DEFAULT_ENV_VAR, ...job.envVars])) env[name] = job.url;
  log('running migrate command %s for %s', command, template);
  // A group of its own, so that a timeout ends the shell and whatever it started (npm, then node).
  const child = spawn(command, { shell: true, cwd: job.cwd ?? process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise<void>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      killGroup(child.pid);
    }, job.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(
        new FastTestDbError('MIGRATION_FAILED', `migrate command "${command}" could not start: ${e.message}`, 'check the command', {
          cause: e,
        }),
      );
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (expired) return reject(timedOut(template, job.timeoutMs, `migrate command "${command}"`, output));
      if (code === 0) return resolve();
      const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
      reject(
        new FastTestDbError(
          'MIGRATION_FAILED',
          `migrate command "${command}" ${how} while building template ${template}; nothing was cached${shown(output)}`,
          'fix the command: run it by hand with DATABASE_URL set to an empty database to see it fail the same way',
        ),
      );
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Ended meanwhile.
  }
}

/** The command's output, for the error: a failure shows what the migration said. */
function shown(output: string): string {
  const text = output.trim();
  return text ? `; its output (the last ${OUTPUT_KEPT} characters at most):\n${text.replace(/^/gm, '    ')}` : '';
}
