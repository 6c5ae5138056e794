/** The Prisma equivalence zoo on the installed Prisma 7. */
import { PrismaPg } from '@prisma/adapter-pg';
import { installedVersion } from '../../helpers/installed-version.js';
import { prismaZooSuite } from './zoo-suite.js';

prismaZooSuite({ version: installedVersion('prisma'), PrismaPg });
