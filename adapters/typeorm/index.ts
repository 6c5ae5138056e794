/**
 * fast-test-db/typeorm: a worker's test database for a TypeORM DataSource, and fastInsert for seeding.
 * TypeORM is an optional peer: it is loaded when typeormTestDb runs, never by the core.
 */
export { typeormTestDb, typeormDataSource, typeormOptions, type TypeormTestDb, type TypeormTestDbOptions } from './test-db.js';
export { typeormTemplate, type TypeormTemplateOptions } from './template.js';
export type { TemplateSource } from '../../src/adapter-kit.js';
export { fastInsert, type FastInsertOptions, type FastInsertTarget } from './fast-insert.js';
export type { SchemaSource } from './fingerprint.js';
export { withRollback } from './with-rollback.js';
