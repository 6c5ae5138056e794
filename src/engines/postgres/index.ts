/** PostgreSQL: the facts that need no driver here; the roles that speak to a server load with pg. */
import { engineRoles } from '../../state.js';
import { loadPeer, withPeer } from '../../util/peer.js';
import type { Engine, ServerRoles } from '../engine.js';
import { errors } from './errors.js';
import { inserts } from './inserts.js';
import { monitor } from './monitor.js';
import { quoting } from './quote.js';
import { tuning } from './tuning.js';
import { urls } from './urls.js';

export const postgres: Engine = {
  name: 'postgres',
  label: 'PostgreSQL',
  aliases: ['postgres', 'postgresql', 'pg'],
  flavors: ['postgres'],
  flavorLabels: { postgres: 'PostgreSQL' },
  flavorOfVersion: () => 'postgres',
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
    namesSessionTasks: () => true,
  },
  monitor,
  inserts,
  systemDatabases: ['postgres', 'template0', 'template1'],
  doctor: async () => (await import('./doctor.js')).doctor,
  provisioning: { embedded: () => import('./embedded.js'), container: () => import('./container.js') },
  load(options = {}) {
    // One set of roles per clone strategy, the only option they take.
    const key = `postgres:${options.cloneStrategy ?? 'file_copy'}`;
    let roles = engineRoles.get(key) as Promise<ServerRoles> | undefined;
    if (!roles) {
      roles = withPeer(loadPeer('pg', 'PostgreSQL support'), import('./roles.js')).then((m) => m.postgresRoles(options));
      engineRoles.set(key, roles);
    }
    return roles;
  },
};
