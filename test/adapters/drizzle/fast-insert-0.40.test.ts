/** The Drizzle equivalence zoo on drizzle-orm 0.40.0 (the lowest of the peer range), installed as "drizzle-orm-0.40". */
import { useInstalled } from '../../helpers/installed-version.js';

// Every entry point the adapter and the suite load: all must come from the one copy.
const installed = await useInstalled('drizzle-orm', 'drizzle-orm-0.40', [
  '',
  'pg-core',
  'mysql-core',
  'node-postgres',
  'postgres-js',
  'mysql2',
  'migrator',
  'node-postgres/migrator',
  'postgres-js/migrator',
  'mysql2/migrator',
]);
const { drizzleZooSuite } = await import('./fast-insert-suite.js');
drizzleZooSuite('0.40.0', installed);
