import type { Flavor } from '../../types.js';

/** MariaDB says so in its version string (`10.11.6-MariaDB-0+deb12u1`); MySQL's is bare. */
export function flavorOfVersion(version: string): Flavor {
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}
