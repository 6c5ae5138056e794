/** The adapter contract for TypeORM 0.3.20, installed as "typeorm-0.3.20", on PostgreSQL and MariaDB. */
import { useInstalled } from '../../helpers/installed-version.js';

await useInstalled('typeorm', 'typeorm-0.3.20');
const { adapterContract } = await import('../contract.js');
const { typeormFixture } = await import('./contract.js');
adapterContract(typeormFixture('postgres', '0.3.20'));
adapterContract(typeormFixture('mysql', '0.3.20'));
