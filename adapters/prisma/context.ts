/**
 * What fastInsert needs besides a driver: the schema (the one embedded in the generated client,
 * else the file given), Prisma's Decimal, and pg's text-array parser.
 */
import { FastTestDbError, loadPeer } from '../../src/adapter-kit.js';
import type { PrismaDriver } from './driver.js';
import type { FastInsertContext } from './fast-insert.js';
import { parsePrismaSchema, type PrismaSchema } from './schema.js';
import type { DecimalCtor } from './values.js';

export function inlineSchema(prisma: object): PrismaSchema | undefined {
  const inline = (prisma as { _engineConfig?: { inlineSchema?: string } })._engineConfig?.inlineSchema;
  return inline ? parsePrismaSchema(inline) : undefined;
}

/** Prefers the schema the client was generated from (it is embedded in the client). */
export async function buildContext(prisma: object, fromFile: PrismaSchema | undefined, driver: PrismaDriver): Promise<FastInsertContext> {
  const schema = inlineSchema(prisma) ?? fromFile;
  if (!schema) throw new FastTestDbError('BAD_OPTION', 'fastInsert found no Prisma schema: this client embeds none and none was given', 'pass schema: the path of schema.prisma to prismaClient()');
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
