/**
 * fast-test-db/drizzle: a Drizzle instance on this worker's database, built from your
 * drizzle-kit migrations (or schema) once per fingerprint, and fastInsert for seeding.
 */
export { drizzleTestDb } from './test-db.js';
export type { DrizzleTestDb, DrizzleTestDbOptions, DrizzleDbFor } from './test-db.js';
export { drizzleTemplate } from './template.js';
export type { DrizzleTemplateOptions } from './template.js';
export type { TemplateSource } from '../../src/adapter-kit.js';
export { fastInsert } from './fast-insert.js';
export type { FastInsertOptions, MySqlInsertedId } from './fast-insert.js';
export type { Casing, DrizzleDriver } from './driver.js';
export { schemaDdl } from './schema-ddl.js';
export { withRollback, type DrizzleTransactionOf } from './with-rollback.js';
