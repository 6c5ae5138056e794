/**
 * fast-test-db/mocha: `mocha --require fast-test-db/mocha` (or `require: ['fast-test-db/mocha']` in
 * .mocharc). Mocha takes from this one module its global fixtures (server and template, once, in
 * the main process) and its root hooks (the worker's database).
 *
 * - `--parallel`: each worker (MOCHA_WORKER_ID) gets its own clone; the URL is exported when the
 *   worker loads this module, before it loads any spec file. Root hooks run per file there, so
 *   isolation 'file' gives each file a fresh clone.
 * - serial: Mocha loads the spec files before the global setup runs, so the URL reaches the env
 *   var only after the app's modules were imported: the app must read it when it first connects,
 *   not at import. One database for the whole run; root hooks run once for all files there, so
 *   isolation 'file' clones afresh before the first test of each next file (connections still
 *   open on the old clone are ended: close the app's pool in the file's `after`).
 */
export { mochaGlobalSetup, mochaGlobalTeardown } from './global-setup.js';
export { mochaHooks, testDatabase } from './setup.js';
export type { TestDatabase } from '../../types.js';
