/** What MySQL/MariaDB URLs look like, and what one that leaves a part out means. */
import type { Urls } from '../engine.js';

export const urls: Urls = {
  schemes: ['mysql', 'mariadb'],
  url(server, database) {
    const auth = encodeURIComponent(server.user) + (server.password ? ':' + encodeURIComponent(server.password) : '');
    const host = server.host.includes(':') && !server.host.startsWith('[') ? `[${server.host}]` : server.host;
    return `mysql://${auth}@${host}:${server.port}/${encodeURIComponent(database)}`;
  },
  defaults: () => ({ port: 3306, user: 'root', password: '', adminDatabase: 'mysql' }),
  flavorOfScheme: (scheme) => (scheme === 'mariadb' ? 'mariadb' : scheme === 'mysql' ? 'mysql' : undefined),
  // mysql2 takes a socket as `socketPath`.
  socketAsHost: false,
};
