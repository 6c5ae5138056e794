/**
 * The database `fast-test-db start` hands out: a fresh, empty database of ours on our own server,
 * never a system one, optionally with the fixed login an app already uses (a drop-in for the
 * database service of a docker-compose file: `--port 5432 --user test --password test --database test`).
 */
import type { EngineName, ServerRoles, SqlClient } from '../engines/engine.js';
import { engineFor } from '../engines/index.js';
import { newMarker } from '../engines/marker.js';
import { FastTestDbError } from '../errors.js';
import type { ServerInfo } from '../types.js';
import { loginPassword } from '../server/os/password.js';

export const DEFAULT_HANDED_OUT = 'test';

export interface HandOutRequest {
  database?: string;
  user?: string;
  password?: string;
}

export interface HandedOut {
  url: string;
  database: string;
  user: string;
  /** False when an earlier `start` on this server made it (a joined server keeps its data). */
  created: boolean;
}

/** Refuses a system database by name, before any server starts. */
export function handOutName(engine: EngineName, database = DEFAULT_HANDED_OUT): string {
  if (engineFor(engine).systemDatabases.includes(database.toLowerCase()))
    throw new FastTestDbError(
      'BAD_OPTION',
      `--database ${database} is one of the server's own databases`,
      `name the database your app uses, e.g. --database ${DEFAULT_HANDED_OUT}`,
    );
  return database;
}

export async function handOutDatabase(
  roles: Pick<ServerRoles, 'markers' | 'templates' | 'logins'>,
  admin: SqlClient,
  server: ServerInfo,
  req: HandOutRequest,
): Promise<HandedOut> {
  const database = handOutName(server.engine, req.database);
  const user = req.user ?? server.user;
  // A login the user named without a password still gets one (in the URL printed): with none, any
  // local user could log in as it.
  const password = req.password ?? (user === server.user ? server.password : loginPassword(server.password, user));
  if (user === server.user && password !== server.password)
    throw new FastTestDbError(
      'BAD_OPTION',
      `--user ${user} is the server's admin account, whose password fast-test-db keeps as it is`,
      `use another user name, e.g. --user test --password ${password || 'test'}`,
    );

  const marker = await roles.markers.readMarker(admin, database);
  if (marker === null)
    throw new FastTestDbError(
      'NOT_OURS',
      `a database named ${database} already exists on this server and was not created by fast-test-db; it was left untouched`,
      'choose another --database, or remove that database yourself',
    );
  if (marker === undefined) await roles.templates.createEmpty(admin, database, newMarker('database', { run: 'start' }));
  if (user !== server.user) {
    await roles.logins.createLogin(admin, user, password);
    await roles.logins.grantDatabase(admin, database, user);
  }
  return { url: engineFor(server.engine).urls.url({ ...server, user, password }, database), database, user, created: marker === undefined };
}
