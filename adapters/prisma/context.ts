/**
 * What fastInsert needs besides a driver: the schema (the client's runtime data model, completed
 * by the schema text it embeds, else by the file given), Prisma's Decimal, and pg's text-array parser.
 */
import { FastTestDbError, loadPeer } from '../../src/adapter-kit.js';
import type { PrismaDriver } from './driver.js';
import type { FastInsertContext } from './fast-insert.js';
import { clientSchema, runtimeDataModel } from './runtime-model.js';
import type { PrismaSchemaText } from './schema.js';
import type { DecimalCtor } from './values.js';

/** The client's models by name, as its runtime data model lists them (to register its delegates). */
export function inlineSchema(prisma: object): { models: Map<string, unknown> } | undefined {
  const runtime = runtimeDataModel(prisma);
  return runtime && { models: new Map(Object.entries(runtime.models)) };
}

/** Prefers the schema the client was generated from (it is embedded in the client). */
export async function buildContext(
  prisma: object,
  fromFile: PrismaSchemaText | undefined,
  driver: PrismaDriver,
): Promise<FastInsertContext> {
  const schema = clientSchema(prisma, fromFile);
  if (!schema)
    throw new FastTestDbError(
      'BAD_OPTION',
      'fastInsert found no Prisma schema: this client embeds none and none was given',
      'pass schema: the path of schema.prisma to prismaClient()',
    );
  const runtime = await loadPeer<{ Decimal: DecimalCtor }>('@prisma/client/runtime/client', 'fastInsert (Prisma Decimal values)');
  let parseTextArray: (s: string) => Array<string | null> = () => {
    throw new FastTestDbError('UNSUPPORTED', 'array columns are PostgreSQL-only', 'remove the list field');
  };
  if (driver.family === 'postgres') {
    const pg = await loadPeer<typeof import('pg')>('pg', 'fastInsert on PostgreSQL');
    parseTextArray = pg.types.getTypeParser(1009 as never) as never;
  }
  return { schema, driver, Decimal: runtime.Decimal, parseTextArray, plans: new Map() };
}
