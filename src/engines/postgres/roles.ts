/** PostgreSQL's roles that speak to a server, one file each beside this one; loaded with the driver. */
import type { LoadOptions, ServerRoles } from '../engine.js';
import { connectPostgres, type PgClient } from './client.js';
import { inspector } from './inspect.js';
import { locks } from './locks.js';
import { logins } from './logins.js';
import { markers } from './marker.js';
import { resetter } from './reset.js';
import { swap } from './swap.js';
import { templateStore } from './templates.js';
import { tuner } from './tuning.js';

export function postgresRoles(options: LoadOptions): ServerRoles<PgClient> {
  return {
    connector: { connect: connectPostgres },
    locks,
    templates: templateStore(options),
    markers,
    resetter,
    inspector,
    logins,
    tuner,
    swap,
  };
}
