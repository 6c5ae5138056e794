/**
 * fast-test-db/prisma: a Prisma 7 client on this worker's own database, cloned from a template
 * that ran the project's migrations once, and fastInsert for seeding.
 *
 *   const { prisma, database } = await prismaTestDb({ client: PrismaClient, schema: 'prisma/schema.prisma' });
 *   const alice = await fastInsert(prisma.user, { email: 'a@x.io' });
 *
 * Under a runner integration the two halves are apart: `prismaTemplate()` as the config's adapter
 * (the global setup builds the template), `prismaClient()` in a setup file on the worker's URL.
 */
export {
  prismaTestDb,
  prismaClient,
  type PrismaTestDb,
  type PrismaTestDbOptions,
  type PrismaClientHandle,
  type PrismaClientOptions,
} from './test-db.js';
export { prismaTemplate, type PrismaMigrateWith, type PrismaTemplateOptions } from './template.js';
export { fastInsert, type CreateData, type CreatedRecord, type FastInsertOptions, type ModelDelegate } from './fast-insert.js';
export { applyMigrations, readMigrations, MIGRATIONS_TABLE_DDL, type PrismaMigration } from './migrations.js';
export { parsePrismaSchema, type PrismaSchema, type PrismaSchemaText, type PrismaModel, type PrismaField } from './schema.js';
