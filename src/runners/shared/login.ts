/**
 * The `login` option in a run: the login the app's code spells out, made on the run's server (ours
 * only) in the runner's main process, before any worker clones the template. Its rights travel
 * with the template into every clone, so that a worker needs no step of its own; the handoff
 * carries the user and password, which the workers' URLs and the `env` mapping hand out.
 */
import type { ServerRoles } from '../../engines/engine.js';
import { withClient } from '../../engines/connect.js';
import { FastTestDbError } from '../../errors.js';
import { checkDatabaseName, checkLogin, fixedDatabase, makeLogin, type LoginWording } from '../../core/logins.js';
import type { Context } from '../../options/context.js';
import type { Handoff, ServerInfo } from '../../types.js';
import { logger } from '../../util/log.js';

const log = logger('runner');

const WORDS: LoginWording = { user: 'login.user', database: 'login.database', example: "login: { user: 'test', password: 'test' }" };

/** What the handoff carries of the `login` option: never the database, which each worker's URL names itself. */
export function handedLogin(ctx: Pick<Context, 'options'>): Handoff['login'] {
  const login = ctx.options.login;
  return login && { user: login.user, password: login.password };
}

/**
 * Makes the run's login on `server` and gives it every right on what `template` holds (and makes
 * `login.database`). On a server we do not own, only its own login is accepted: its logins are
 * its owner's to make.
 */
export async function makeRunLogin(
  ctx: Pick<Context, 'options'>,
  roles: ServerRoles,
  server: ServerInfo,
  template: string,
  run: string,
): Promise<void> {
  const login = ctx.options.login;
  if (!login) return;
  if (login.database) checkDatabaseName(server.engine, login.database, WORDS, "database: 'test'");
  if (!server.owned) {
    if (login.user === server.user && login.password === server.password && !login.database) return;
    throw new FastTestDbError(
      'NOT_OURS',
      `the login option asks for a login ${login.user}${login.database ? ` and a database ${login.database}` : ''} on ${server.host}:${server.port}, a server fast-test-db did not start (url or FAST_TEST_DB_URL): its logins and databases are its owner's, and fast-test-db makes none there`,
      `make that login on that server yourself and give its URL (postgres://${login.user}:…@${server.host}:${server.port}/…) without the login option, or drop url/FAST_TEST_DB_URL so that the run starts a server of ours`,
    );
  }
  checkLogin(server, login, WORDS);
  await withClient(roles.connector, server, async (admin) => {
    await makeLogin(roles, admin, server, login);
    // Under the template's lock, as a lease is taken: no eviction or clean drops it meanwhile.
    if (login.user !== server.user)
      await roles.locks.withLock(admin, template, () => roles.logins.grantContents(admin, server, template, login.user));
    if (login.database) await fixedDatabase(roles, admin, server, { name: login.database, login, template, run, words: WORDS });
  });
  log('login %s made%s', login.user, login.database ? `, with database ${login.database}` : '');
}
