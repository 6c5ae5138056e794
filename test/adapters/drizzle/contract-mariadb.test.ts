/** The adapter contract for Drizzle (the installed version) on MariaDB. */
import { installedVersion } from '../../helpers/installed-version.js';
import { adapterContract } from '../contract.js';
import { drizzleFixture } from './contract.js';

adapterContract(drizzleFixture('mysql', installedVersion('drizzle-orm')));
