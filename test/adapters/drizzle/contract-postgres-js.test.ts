/** The adapter contract for Drizzle (the installed version) on PostgreSQL through postgres.js. */
import { installedVersion } from '../../helpers/installed-version.js';
import { adapterContract } from '../contract.js';
import { drizzleFixture } from './contract.js';

adapterContract(drizzleFixture('postgres', installedVersion('drizzle-orm'), 'postgres-js'));
