/** The Drizzle equivalence zoo on the installed drizzle-orm (the latest of the peer range). */
import * as drizzle from 'drizzle-orm';
import { installedVersion } from '../../helpers/installed-version.js';
import { drizzleZooSuite } from './fast-insert-suite.js';

drizzleZooSuite(installedVersion('drizzle-orm'), drizzle as unknown as Record<string, unknown>);
