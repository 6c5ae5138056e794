/** The TypeORM equivalence zoo on the installed `typeorm` (1.x). */
import * as typeorm from 'typeorm';
import { typeormZooSuite } from './zoo-suite.js';

typeormZooSuite('1.x', typeorm as unknown as Record<string, unknown>);
