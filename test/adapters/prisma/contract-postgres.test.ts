/** The adapter contract for Prisma (the installed version) on PostgreSQL. */
import { installedVersion } from '../../helpers/installed-version.js';
import { adapterContract } from '../contract.js';
import { prismaFixture } from './contract.js';

adapterContract(prismaFixture('postgres', installedVersion('prisma')));
