/**
 * The project's own server, as the library would start it, so that `start` and `url` run exactly
 * the server a test run in this directory joins (the request comes from server/providers/embedded.ts),
 * optionally on a port of the user's choosing.
 */
import { engineFor } from '../engines/index.js';
import { acquireOwnedServer, type OwnedServerRequest } from '../server/registry.js';
import { serverState } from '../server/keeper/server-state.js';
import { serverDir } from '../server/keeper/dirs.js';
import { contextOf } from '../options/context.js';
import { embeddedRequest } from '../server/providers/embedded.js';
import type { EngineName, ServerInfo, TestDatabaseOptions } from '../types.js';
import type { Output } from '../util/output.js';

export interface OwnedRequest {
  request: OwnedServerRequest;
  /** e.g. "PostgreSQL 18.4" */
  label: string;
  dir: string;
}

export async function ownedRequest(engine: EngineName, options: TestDatabaseOptions, port?: number): Promise<OwnedRequest> {
  await engineFor(engine).load(); // a missing driver is PEER_MISSING before a server starts
  // The command line's own keys (engineGiven) are not options; what the config file may hold is.
  const { engineGiven: _given, ...config } = options as TestDatabaseOptions & { engineGiven?: boolean };
  const { request, label } = await embeddedRequest(engine, contextOf(config, { config: true }), port);
  return { request, label, dir: serverDir(request) };
}

/**
 * True while a keeper runs this server: before acquiring, it means we join rather than start; after,
 * that the server we hold has not gone away. The registry's serverState() decides.
 */
export function isRunning(dir: string): boolean {
  return serverState(dir).state === 'running';
}

/** Starts or joins the server behind a status line; `done` words the outcome. */
export async function acquire(
  req: OwnedRequest,
  out: Output,
  done: (joined: boolean) => string,
): Promise<{ server: ServerInfo; joined: boolean }> {
  const joined = isRunning(req.dir);
  const status = out.status(`${joined ? 'joining' : 'starting'} ${req.label}`);
  let server: ServerInfo;
  try {
    server = await acquireOwnedServer(req.request);
  } catch (e) {
    status.fail(`${req.label} did not start`);
    throw e;
  }
  status.succeed(done(joined));
  return { server, joined };
}
