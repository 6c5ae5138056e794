/** The adapter contract for TypeORM (the installed version) on PostgreSQL. */
import { installedVersion } from '../../helpers/installed-version.js';
import { adapterContract } from '../contract.js';
import { typeormFixture } from './contract.js';

adapterContract(typeormFixture('postgres', installedVersion('typeorm')));
