/** What PostgreSQL URLs look like, and what one that leaves a part out means to libpq. */
import type { Urls } from '../engine.js';

export const urls: Urls = {
  schemes: ['postgres', 'postgresql'],
  url(server, database) {
    const auth = encodeURIComponent(server.user) + (server.password ? ':' + encodeURIComponent(server.password) : '');
    return `postgres://${auth}@${server.host}:${server.port}/${encodeURIComponent(database)}`;
  },
  defaults: (env) => ({ port: 5432, user: env.PGUSER ?? 'postgres', password: env.PGPASSWORD ?? '', adminDatabase: 'postgres' }),
  flavorOfScheme: (scheme) => (urls.schemes.includes(scheme) ? 'postgres' : undefined),
  socketAsHost: true,
};
