/** MySQL and MariaDB: the facts that need no driver here; the roles that speak to a server load with mysql2. */
import { engineRoles } from '../../state.js';
import { loadPeer, withPeer } from '../../util/peer.js';
import type { Engine, ServerRoles } from '../engine.js';
import { errors } from './errors.js';
import { flavorOfVersion } from './flavor.js';
import { inserts } from './inserts.js';
import { monitor } from './monitor.js';
import { quoting } from './quote.js';
import { tuning } from './tuning.js';
import { urls } from './urls.js';

export const mysql: Engine = {
  name: 'mysql',
  label: 'MySQL/MariaDB',
  aliases: ['mysql', 'mariadb'],
  flavors: ['mysql', 'mariadb'],
  flavorLabels: { mysql: 'MySQL', mariadb: 'MariaDB' },
  flavorOfVersion,
  urls,
  quoting,
  errors,
  tuning,
  server: {
    stopSignal: 'SIGTERM',
    // One process, a thread per connection.
    sessionsAreProcesses: false,
    dataCache: false,
    sessionIdName: 'connection',
    // MariaDB's PROCESSLIST.TID (10.5+).
    namesSessionTasks: (flavor) => flavor === 'mariadb',
  },
  monitor,
  inserts,
  systemDatabases: ['mysql', 'information_schema', 'performance_schema', 'sys'],
  doctor: async () => (await import('./doctor.js')).doctor,
  provisioning: { embedded: () => import('./embedded.js'), container: () => import('./container.js') },
  load() {
    // One set of roles per process: they cache template captures, and take no option.
    let roles = engineRoles.get('mysql') as Promise<ServerRoles> | undefined;
    if (!roles) {
      roles = withPeer(loadPeer('mysql2/promise', 'MySQL/MariaDB support'), import('./roles.js')).then((m) => m.mysqlRoles());
      engineRoles.set('mysql', roles);
    }
    return roles;
  },
};
