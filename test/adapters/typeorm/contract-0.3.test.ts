/** The adapter contract for TypeORM 0.3.31, installed as "typeorm-0.3", on PostgreSQL and MariaDB. */
import { useInstalled } from '../../helpers/installed-version.js';

await useInstalled('typeorm', 'typeorm-0.3');
const { adapterContract } = await import('../contract.js');
const { typeormFixture } = await import('./contract.js');
adapterContract(typeormFixture('postgres', '0.3.31'));
adapterContract(typeormFixture('mysql', '0.3.31'));
