/** MySQL's and MariaDB's roles that speak to a server, one file each beside this one; loaded with mysql2. */
import type { ServerRoles } from '../engine.js';
import { Captures } from './capture.js';
import { connectMysql, type MysqlClient } from './client.js';
import { inspector } from './inspect.js';
import { locks } from './locks.js';
import { logins } from './logins.js';
import { markers } from './marker.js';
import { resetter } from './reset.js';
import { templateStore } from './templates.js';
import { tuner } from './tuning.js';

/** The captures clones and resets read are cached once, shared by both roles. */
export function mysqlRoles(): ServerRoles<MysqlClient> {
  const captures = new Captures();
  return {
    connector: { connect: connectMysql },
    locks,
    templates: templateStore(captures),
    markers,
    resetter: resetter(captures),
    inspector,
    logins,
    tuner,
    // No database rename: recreate() drops, then clones.
    swap: null,
  };
}
