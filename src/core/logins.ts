/**
 * The login an app's code spells out (`user: 'test', password: 'test'`), made on a server of ours,
 * and the database of a fixed name it may come with. One set of rules for both ways of asking:
 * `fast-test-db start --user/--password/--database` by hand, and the `login` option in a run.
 * Never on a server we do not own: its logins are its owner's.
 */
import type { EngineName, ServerRoles, SqlClient } from '../engines/engine.js';
import { engineFor } from '../engines/index.js';
import { newMarker } from '../engines/marker.js';
import { FastTestDbError } from '../errors.js';
import type { ServerInfo } from '../types.js';
import { heldByOther, liveOtherOwner } from './users.js';

export interface AppLogin {
  user: string;
  password: string;
}

/** How the caller names the parts, for the messages: `--user` or `login.user`, and an example of a good value. */
export interface LoginWording {
  user: string;
  database: string;
  example: string;
}

/** Refuses one of the server's own databases by name, before any server starts. */
export function checkDatabaseName(engine: EngineName, database: string, words: Pick<LoginWording, 'database'>, example: string): string {
  if (engineFor(engine).systemDatabases.includes(database.toLowerCase()))
    throw new FastTestDbError(
      'BAD_OPTION',
      `${words.database} ${database} is one of the server's own databases`,
      `name the database your app uses, e.g. ${example}`,
    );
  return database;
}

/**
 * Refuses the admin's name with another password: the admin's password is the one that keeps other
 * local users out of the server, and stays as fast-test-db made it.
 */
export function checkLogin(server: ServerInfo, login: AppLogin, words: Pick<LoginWording, 'user' | 'example'>): void {
  if (login.user === server.user && login.password !== server.password)
    throw new FastTestDbError(
      'BAD_OPTION',
      `${words.user} ${login.user} is the server's admin account, whose password fast-test-db keeps as it is`,
      `use another user name, e.g. ${words.example}`,
    );
}

/** Makes the login (or sets its password) on our server; the admin itself needs nothing. */
export async function makeLogin(roles: Pick<ServerRoles, 'logins'>, admin: SqlClient, server: ServerInfo, login: AppLogin): Promise<void> {
  if (login.user !== server.user) await roles.logins.createLogin(admin, login.user, login.password);
}

/**
 * Database `name` of ours made again from `template` (empty when none), handed to `login`, which
 * is made first (after the database is known to be ours: a refusal changes nothing). Returns
 * whether it was made now: a database of ours of that name with no template is kept as it is (a
 * joined server keeps its data). Refuses one we did not make, and one a live run still uses.
 */
export async function fixedDatabase(
  roles: Pick<ServerRoles, 'markers' | 'templates' | 'logins'>,
  admin: SqlClient,
  server: ServerInfo,
  req: { name: string; login: AppLogin; template?: string; run: string; words: Pick<LoginWording, 'database'> },
): Promise<boolean> {
  const { name, template } = req;
  const marker = await roles.markers.readMarker(admin, name);
  if (marker === null)
    throw new FastTestDbError(
      'NOT_OURS',
      `a database named ${name} already exists on this server and was not created by fast-test-db; it was left untouched`,
      `choose another ${req.words.database}, or remove that database yourself`,
    );
  const made = !marker || template !== undefined;
  if (marker && made) {
    const owner = liveOtherOwner(marker);
    if (owner !== undefined) throw heldByOther(name, marker, owner);
    await roles.templates.drop(admin, name, { force: true });
  }
  const mark = newMarker('database', { run: req.run });
  if (made && template) await roles.templates.clone(admin, server, template, name, mark);
  else if (made) await roles.templates.createEmpty(admin, name, mark);
  await makeLogin(roles, admin, server, req.login);
  if (req.login.user !== server.user) await roles.logins.grantDatabase(admin, name, req.login.user);
  return made;
}
