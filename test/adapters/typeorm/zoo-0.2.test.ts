/** The TypeORM equivalence zoo on TypeORM 0.2.45, installed as "typeorm-0.2". */
import { useInstalled } from '../../helpers/installed-version.js';

const installed = await useInstalled('typeorm', 'typeorm-0.2');
const { typeormZooSuite } = await import('./zoo-suite.js');
typeormZooSuite('0.2.45', installed);
