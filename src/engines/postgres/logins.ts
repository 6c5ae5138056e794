/** Logins for apps whose credentials are fixed: a role that may create databases, owning the ones handed to it. */
import type { Logins } from '../engine.js';
import type { PgClient } from './client.js';
import { id, lit } from './quote.js';

export const logins: Logins<PgClient> = {
  async createLogin(admin, user, password) {
    const exists = (await admin.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [user])).length > 0;
    await admin.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${id(user)} LOGIN CREATEDB PASSWORD ${lit(password)}`);
  },

  async grantDatabase(admin, name, user) {
    await admin.query(`ALTER DATABASE ${id(name)} OWNER TO ${id(user)}`);
  },
};
