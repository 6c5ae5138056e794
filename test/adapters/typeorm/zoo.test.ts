/** The TypeORM equivalence zoo on the installed `typeorm` (1.x). */
import * as typeorm from 'typeorm';
import { installedVersion } from '../../helpers/installed-version.js';
import { typeormZooSuite } from './zoo-suite.js';

typeormZooSuite(installedVersion('typeorm'), typeorm as unknown as Record<string, unknown>);
