/**
 * Our own version: part of every template fingerprint, so an upgrade never reuses a template built
 * by an older release. The build writes package.json's version in (tsup.config.ts, `define`); run
 * from source (tsx, Vitest) it is read from package.json. test/util/version.test.ts checks both agree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { here } from '../here.js';

declare const __FAST_TEST_DB_VERSION__: string | undefined;

export const VERSION: string =
  typeof __FAST_TEST_DB_VERSION__ === 'string'
    ? __FAST_TEST_DB_VERSION__
    : (JSON.parse(readFileSync(join(here(), '..', 'package.json'), 'utf8')) as { version: string }).version;
