/**
 * The project's own server, as the library would start it, so that `start` and `url` run exactly
 * the server a test run in this directory joins (the request comes from server/resolve.ts),
 * optionally on a port of the user's choosing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { keeperFiles, type KeeperStatus } from '../server/keeper-files.js';
import { pidAlive } from '../server/lock.js';
import { acquireOwnedServer, type OwnedServerRequest, serverDir } from '../server/registry.js';
import { embeddedRequest } from '../server/resolve.js';
import type { Engine, ServerInfo, TestDatabaseOptions } from '../types.js';
import type { Output } from './output.js';

export interface OwnedRequest {
  request: OwnedServerRequest;
  /** e.g. "PostgreSQL 18.4" */
  label: string;
  dir: string;
}

export async function ownedRequest(engine: Engine, options: TestDatabaseOptions, port?: number): Promise<OwnedRequest> {
  const { request, label } = await embeddedRequest(engine, options, port);
  return { request, label, dir: serverDir(request) };
}

/** True when a keeper already runs this server (so acquiring joins it rather than starting it). */
export function alreadyRunning(dir: string): boolean {
  const files = keeperFiles(dir);
  if (!existsSync(files.status) || !existsSync(files.state)) return false;
  try {
    const status = JSON.parse(readFileSync(files.status, 'utf8')) as KeeperStatus;
    return status.phase === 'running' && pidAlive(status.keeperPid);
  } catch {
    return false;
  }
}

export function keeperAlive(dir: string): boolean {
  try {
    const status = JSON.parse(readFileSync(keeperFiles(dir).status, 'utf8')) as KeeperStatus;
    return pidAlive(status.keeperPid) && status.phase === 'running';
  } catch {
    return false;
  }
}

/** Starts or joins the server behind a status line; `done` words the outcome. */
export async function acquire(req: OwnedRequest, out: Output, done: (joined: boolean) => string): Promise<{ server: ServerInfo; joined: boolean }> {
  const joined = alreadyRunning(req.dir);
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
