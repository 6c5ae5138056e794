/** PostgreSQL: the facts that need no driver here; the roles that speak to a server load with pg. */
import { loadPeer } from '../../util/peer.js';
import type { Engine, ServerRoles } from '../engine.js';
import { errors } from './errors.js';
import { inserts } from './inserts.js';
import { monitor } from './monitor.js';
import { quoting } from './quote.js';
import { tuning } from './tuning.js';
import { urls } from './urls.js';

/** One set of roles per clone strategy, the only option they take. */
const loaded = new Map<string, Promise<ServerRoles>>();

export const postgres: Engine = {
  name: 'postgres',
  label: 'PostgreSQL',
  aliases: ['postgres', 'postgresql', 'pg'],
  flavors: ['postgres'],
  flavorLabels: { postgres: 'PostgreSQL' },
  urls,
  quoting,
  errors,
  tuning,
  server: {
    // Fast shutdown: active transactions are rolled back, no waiting for clients to leave.
    stopSignal: 'SIGINT',
    sessionsAreProcesses: true,
    dataCache: true,
    sessionIdName: 'pid',
  },
  monitor,
  inserts,
  systemDatabases: ['postgres', 'template0', 'template1'],
  doctor: async () => (await import('./doctor.js')).doctor,
  provisioning: { embedded: () => import('./embedded.js') },
  load(options = {}) {
    const key = options.cloneStrategy ?? 'file_copy';
    let roles = loaded.get(key);
    if (!roles) {
      roles = loadPeer('pg', 'PostgreSQL support').then(async () => (await import('./roles.js')).postgresRoles(options));
      loaded.set(key, roles);
    }
    return roles;
  },
};
