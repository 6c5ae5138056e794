/** Logins for apps whose credentials are fixed: an account with every right, over TCP and the socket. */
import type { Logins } from '../engine.js';
import type { MysqlClient } from './client.js';
import { lit } from './quote.js';

/** Over TCP a client matches '%', over the socket 'localhost': the login gets both, with every right. */
async function createLogin(admin: MysqlClient, user: string, password: string): Promise<void> {
  for (const host of ['%', 'localhost']) {
    const account = `${lit(user)}@${lit(host)}`;
    await admin.query(`CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${lit(password)}`);
    await admin.query(`ALTER USER ${account} IDENTIFIED BY ${lit(password)}`);
    await admin.query(`GRANT ALL PRIVILEGES ON *.* TO ${account}`);
  }
}

export const logins: Logins<MysqlClient> = {
  createLogin,
  grantDatabase: async () => undefined, // createLogin already grants every database
  grantContents: async () => undefined, // and everything in them
};
