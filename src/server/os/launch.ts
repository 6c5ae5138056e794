/**
 * How an engine describes the server it wants started. The registry hands a LaunchPlan to the
 * keeper process, which runs `init`, then `server`, and stops and cleans up when no client is left.
 * Engines never spawn long-lived processes themselves: the keeper owns them, so that a client
 * killed with SIGKILL still leaves no server behind.
 */
import type { ServerInfo, TestDatabaseOptions } from '../../types.js';

export interface Command {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Run as this user (we are root and the server refuses root). */
  uid?: number;
  gid?: number;
}

export interface LaunchPlan {
  /** Commands run once, in order, before the server (initdb, mariadb-install-db). Each must exit 0. */
  init: Command[];
  server: Command;
  /** Signal for a fast, clean shutdown (PostgreSQL: SIGINT; mysqld: SIGTERM). */
  stopSignal: NodeJS.Signals;
  /** Paths the keeper removes once the server has exited. */
  cleanup: string[];
  /**
   * After a clean shutdown, copy `from` (the data directory) to `to` before cleanup, so that the next
   * cold start can begin from it: no initdb, and every template already built. Unless `always`,
   * only when a template worth keeping was built meanwhile (warm-cache.ts): an unchanged copy is
   * not written again on every run.
   */
  snapshot?: { from: string; to: string; always?: boolean };
  /** After `init` succeeded, copy `from` to `to`: the next cold start copies it instead of running init. */
  initCache?: { from: string; to: string };
  /** How the server will be reached once it answers (its version and tuning are read back then). */
  expected?: ServerInfo;
  /** The copy this start began from, instead of running init; discarded if the server fails to start. */
  restoredFrom?: string;
  /**
   * Runs in the client once the keeper has started the server: wait until it answers queries,
   * read its settings back, and return how to reach it.
   */
  ready(watch: ReadyWatch): Promise<ServerInfo>;
}

/** What the client that asked for a server can see of its start, while it waits for it to answer. */
export interface ReadyWatch {
  /** False once the keeper is gone or recorded that the start failed. */
  keeperAlive(): boolean;
  /** The end of the server's log. */
  logTail(): string;
  /** Why the server did not start, from `logText` (its log) and what the keeper recorded (startFailureReason). */
  whyNotStarted(logText: string): string;
}

export interface PlanContext {
  /** This server's own directory (on tmpfs); the plan puts data and sockets below it. */
  dir: string;
  /** A port that was free a moment ago. */
  port: number;
  options: TestDatabaseOptions;
  /** The entry's environment, which the keeper runs the server's commands with (a library path to extend). */
  env: Readonly<NodeJS.ProcessEnv>;
  /**
   * Told where the server will listen as soon as the plan knows it, before any slow step. Awaited,
   * it gives the caller a turn first: a runner's global setup returns, and its workers start while
   * the plan goes on (a warm copy's restore holds this thread for 0.08-0.2 s, timed by hand).
   */
  announce?(expected: ServerInfo): Promise<void>;
}

/**
 * What an engine's embedded provisioning (src/engines/<engine>/embedded.ts) gives the registry for
 * the options of a request: the binaries are found when this is built, nothing is started.
 */
export interface EmbeddedServer {
  /** The server's name and version for messages, e.g. "PostgreSQL 18.4". */
  label: string;
  /** Anything that must differ for servers not to be shared (binaries, options). */
  identity: unknown[];
  plan(ctx: PlanContext): Promise<LaunchPlan>;
}

/**
 * Why a server did not start, never empty: the server's log when it wrote one, else what the
 * keeper recorded (a command that could not be executed, an exit code), else that the keeper
 * itself ended without a word.
 */
export function startFailureReason(logText: string, keeperStatus: { phase?: string; error?: string } | undefined): string {
  const log = logText.trim();
  const status = keeperStatus?.error
    ? `${keeperStatus.error}`
    : keeperStatus?.phase
      ? `the keeper stopped in phase "${keeperStatus.phase}"`
      : 'the keeper process ended without recording a status';
  if (log) return keeperStatus?.error ? `${log}\n(${status})` : log;
  return `${status}; the server wrote nothing to its log`;
}
