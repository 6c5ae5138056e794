/**
 * The one line a runner's global setup prints per run: which server the tests use and whether it is
 * tuned. A FAST_TEST_DB_URL (or a url option) pointing at a durable server takes the place
 * of the tuned embedded server, and leaves templates there: this line is how a user notices.
 */
import { Output, type Io, type Status } from '../../util/output.js';
import type { ServerInfo } from '../../types.js';
import type { Context } from '../../options/context.js';
import { flavorLabel } from '../../engines/index.js';

export interface BannerFacts {
  /** Where the server came from when it is not ours: an option, FAST_TEST_DB_URL, or a parent run. */
  source: 'option' | 'env' | 'handed' | 'started';
  template: string;
  built: boolean;
  /** How long a server we own stays up without clients after the run (reuse), or undefined: it stops with the run. */
  keptMs?: number;
  /** How many workers the run uses, and what became of a serial setting (serial.ts), for the runners that say. */
  workers?: string;
}

/** Where a run's server comes from, for the banner: handed by a parent run, the url option, FAST_TEST_DB_URL, or started by us. */
export function serverSource(ctx: Pick<Context, 'options' | 'resolved'>, handed: boolean): BannerFacts['source'] {
  return handed ? 'handed' : ctx.options.url ? 'option' : ctx.resolved.url ? 'env' : 'started';
}

export function runBanner(server: ServerInfo, facts: BannerFacts): string {
  const line = serverLine(server, facts) + (facts.workers ? `; ${facts.workers}` : '');
  return facts.keptMs === undefined ? line : `${line}\n${keptLine(facts.keptMs)}`;
}

/** The second line of a run whose server is kept: a server left running is never a surprise. */
export function keptLine(idleMs: number, stopCommand = 'npx fast-test-db stop'): string {
  return `fast-test-db: the server stays up for the next run until ${idle(idleMs)} without clients (FAST_TEST_DB_REUSE=0: not kept); stop it now with ${stopCommand}`;
}

function idle(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

function serverLine(server: ServerInfo, facts: BannerFacts): string {
  const name = `${flavorLabel(server.flavor)} ${server.version.replace(/-.*$/, '')}`;
  const where = server.owned
    ? `${server.provider}, ours`
    : `${server.host}:${server.port}${facts.source === 'env' ? ' from FAST_TEST_DB_URL' : facts.source === 'option' ? ' from the url option' : ''}, not ours`;
  const template = `template ${facts.template}${facts.built ? ' built' : ''}`;
  if (server.tuned) return `fast-test-db: ${name} (${where}), tuned; ${template}`;
  const fix = server.owned
    ? 'fast-test-db doctor says why'
    : `durable, so slower; our templates stay there (fast-test-db clean --older-than 1d URL drops them)${facts.source === 'env' ? '; unset FAST_TEST_DB_URL to get the tuned embedded server' : ''}`;
  return `fast-test-db: ${name} (${where}), NOT tuned: ${fix}; ${template}`;
}

/**
 * Shows `label` with a spinner and the time while `work` runs, then the line `done` returns in its
 * place; without a terminal, only that line. Nothing at all when quiet.
 */
export async function withStatus<T>({
  quiet,
  label,
  work,
  done,
  stderr = process.stderr,
  env,
}: {
  quiet: boolean;
  label: string;
  work: () => Promise<T>;
  done: (value: T) => string;
  stderr?: Io['stderr'];
  /** The entry's env (context.ts): whether a terminal's line is redrawn (not in CI) and coloured. */
  env: Readonly<NodeJS.ProcessEnv>;
}): Promise<T> {
  // On a terminal the CLI's status line; it is redrawn in place unless CI is set (a CI log keeps lines).
  const status: Status | undefined = !quiet && stderr.isTTY ? new Output({ stdout: process.stdout, stderr, env }).status(label) : undefined;
  let value: T;
  try {
    value = await work();
  } catch (e) {
    status?.fail(`${label}: failed`);
    throw e;
  }
  if (status) status.succeed(done(value));
  else if (!quiet) stderr.write(done(value) + '\n');
  return value;
}
