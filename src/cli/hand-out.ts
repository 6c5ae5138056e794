/**
 * The database `fast-test-db start` hands out: a fresh, empty database of ours on our own server,
 * never a system one, optionally with the fixed login an app already uses (a drop-in for the
 * database service of a docker-compose file: `--port 5432 --user test --password test --database test`).
 */
import type { EngineName, ServerRoles, SqlClient } from '../engines/engine.js';
import { engineFor } from '../engines/index.js';
import { checkDatabaseName, checkLogin, fixedDatabase, type LoginWording } from '../core/logins.js';
import type { ServerInfo } from '../types.js';
import { loginPassword } from '../server/os/password.js';

export const DEFAULT_HANDED_OUT = 'test';

const WORDS: LoginWording = { user: '--user', database: '--database', example: '--user test --password test' };

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
  return checkDatabaseName(engine, database, WORDS, `--database ${DEFAULT_HANDED_OUT}`);
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
  checkLogin(server, { user, password }, { ...WORDS, example: `--user test --password ${password || 'test'}` });
  const created = await fixedDatabase(roles, admin, server, { name: database, login: { user, password }, run: 'start', words: WORDS });
  return { url: engineFor(server.engine).urls.url({ ...server, user, password }, database), database, user, created };
}
