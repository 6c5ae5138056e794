/** The adapter contract for drizzle-orm 0.40.0 (the lowest of the peer range), installed as "drizzle-orm-0.40", on PostgreSQL (node-postgres and postgres.js) and MariaDB. */
import { useInstalled } from '../../helpers/installed-version.js';

// Every entry point the adapter and the fixture load: all must come from the one copy.
await useInstalled('drizzle-orm', 'drizzle-orm-0.40', [
  '',
  'pg-core',
  'mysql-core',
  'node-postgres',
  'mysql2',
  'migrator',
  'node-postgres/migrator',
  'mysql2/migrator',
]);
const { adapterContract } = await import('../contract.js');
const { drizzleFixture } = await import('./contract.js');
adapterContract(drizzleFixture('postgres', '0.40.0'));
adapterContract(drizzleFixture('postgres', '0.40.0', 'postgres-js'));
adapterContract(drizzleFixture('mysql', '0.40.0'));
