/** The TypeORM equivalence zoo on TypeORM 0.3.31, installed as "typeorm-0.3". */
import { useInstalled } from '../../helpers/installed-version.js';

const installed = await useInstalled('typeorm', 'typeorm-0.3');
const { typeormZooSuite } = await import('./zoo-suite.js');
typeormZooSuite('0.3.31', installed);
