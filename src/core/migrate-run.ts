/**
 * Runs the user's `migrate` or `seed` into a template: a function; a command (`'npm run migrate'`)
 * run in the project's directory with the template's URL in DATABASE_URL and the configured env var
 * names; or a module of the project, run in a child node process (migrate-module.ts). Each ends
 * within the migrate timeout or fails with MIGRATION_TIMEOUT, naming the template.
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { FastTestDbError } from '../errors.js';
import { logger } from '../util/log.js';
import { DEFAULT_ENV_VAR } from '../options/resolve.js';
import type { Migrate, MigrateContext } from '../types.js';
import { MODULE_ENV, moduleCommand } from './migrate-module.js';

const log = logger('template');

/** What an app env name receives: the URL, or one part of the connection. */
export type AppEnvRole = 'url' | 'host' | 'port' | 'user' | 'password' | 'database';

/** What a failed command printed, at most this much of its end, in the error. */
const OUTPUT_KEPT = 8_000;

export interface MigrateJob {
  migrate: Migrate;
  /** Which step it is, for its messages: 'migrate' or 'seed'. */
  what?: 'migrate' | 'seed';
  url: string;
  ctx: MigrateContext;
  timeoutMs: number;
  /** Env var names the command also finds the URL in (the runners' envVar). */
  envVars: readonly string[];
  /** The environment the command runs in (the entry's copy), with the URL's vars set on top. */
  env: Readonly<NodeJS.ProcessEnv>;
  /** The app's own env names and what of the template's connection goes in each (the `env` option). */
  appEnv?: Readonly<Record<string, AppEnvRole>>;
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
  const what = job.what ?? 'migrate';
  const cwd = job.cwd ?? process.cwd();
  if (typeof job.migrate === 'string')
    return runChild(job, { shown: `${what} command "${job.migrate}"`, command: job.migrate, args: [], shell: true, extraEnv: {} });
  if (typeof job.migrate === 'object') {
    const { args, path, exportName } = moduleCommand(job.migrate, cwd, what);
    return runChild(job, {
      shown: `${what} module ${job.migrate.module}`,
      command: process.execPath,
      args,
      shell: false,
      extraEnv: { [MODULE_ENV.path]: path, [MODULE_ENV.export]: exportName, [MODULE_ENV.ctx]: JSON.stringify(job.ctx) },
    });
  }
  const fn = job.migrate;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(job.ctx.database, job.timeoutMs, what)), job.timeoutMs);
  });
  try {
    await Promise.race([fn(job.url, job.ctx), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface ChildSpec {
  /** How the error names it: 'migrate command "npm run x"', 'seed module ./seed.ts'. */
  shown: string;
  command: string;
  args: string[];
  shell: boolean;
  extraEnv: NodeJS.ProcessEnv;
}

function runChild(job: MigrateJob, spec: ChildSpec): Promise<void> {
  const template = job.ctx.database;
  const env: NodeJS.ProcessEnv = { ...job.env, ...spec.extraEnv };
  for (const name of new Set([DEFAULT_ENV_VAR, ...job.envVars])) env[name] = job.url;
  // As npm run does: the project's own binaries (tsx, prisma, typeorm) by name, also when the
  // runner was started without a package manager.
  const cwd = job.cwd ?? process.cwd();
  env.PATH = [join(cwd, 'node_modules', '.bin'), env.PATH].filter(Boolean).join(delimiter);
  for (const [name, role] of Object.entries(job.appEnv ?? {}))
    env[name] = role === 'url' ? job.url : String(job.ctx.connection[role] ?? '');
  log('running %s for %s', spec.shown, template);
  // A group of its own, so that a timeout ends the shell and whatever it started (npm, then node).
  const child = spawn(spec.command, spec.args, {
    shell: spec.shell,
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
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
        new FastTestDbError('MIGRATION_FAILED', `${spec.shown} could not start: ${e.message}`, 'check the command', {
          cause: e,
        }),
      );
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (expired) return reject(timedOut(template, job.timeoutMs, spec.shown, output));
      if (code === 0) return resolve();
      const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
      reject(
        new FastTestDbError(
          'MIGRATION_FAILED',
          `${spec.shown} ${how} while building template ${template}; nothing was cached${shown(output)}`,
          spec.shell
            ? 'fix the command: run it by hand with DATABASE_URL set to an empty database to see it fail the same way'
            : 'fix the module: its error is above; run it by hand (node --import tsx) with DATABASE_URL set to an empty database to see it fail the same way',
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
