/**
 * What a generated Prisma client tells about its models at run time, and the only places the
 * adapter reads a client's underscore fields. Prisma 6 and 7 generate (with `prisma-client` and
 * `prisma-client-js` alike) a runtime data model that keeps, per model, its @@map name (from
 * Prisma 7 also its @@schema) and, per field, the name, kind, type, @map name and relation name:
 * that is where those come from. It drops what decides an INSERT (@id, @default, @updatedAt,
 * optional, list, native types, enum value @map), so those are read from the schema text the
 * client embeds (schema.ts). Prisma 6 builds the full data model only for its native engine,
 * which fast-test-db does not support (docs/versions.md).
 * test/adapters/prisma/runtime-model.test.ts and the zoo suites pin each of these gaps, so that they fail
 * on the day Prisma exposes what is missing.
 */
import { parsePrismaSchema, type PrismaField, type PrismaModel, type PrismaSchema, type PrismaSchemaText } from './schema.js';
import { FastTestDbError } from '../../src/adapter-kit.js';

export interface RuntimeField {
  name: string;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  dbName?: string | null;
  relationName?: string;
}

export interface RuntimeModel {
  fields: RuntimeField[];
  dbName: string | null;
  schema?: string | null;
}

/** `RuntimeDataModel` of @prisma/client/runtime/client, as far as the adapter reads it. */
export interface RuntimeDataModel {
  models: Record<string, RuntimeModel>;
  enums: Record<string, unknown>;
  types: Record<string, unknown>;
}

/** The generated client's fields the adapter reads; Prisma declares them on the client class. */
interface ClientInternals {
  _clientVersion?: unknown;
  _runtimeDataModel?: RuntimeDataModel;
  _engineConfig?: { inlineSchema?: string; adapter?: unknown };
}

/**
 * The client's Prisma version when it is 6 or older, else undefined. Its @prisma/adapter-mariadb
 * takes only settings, never a pool, so fastInsert and prismaTestDb refuse it on MySQL/MariaDB.
 */
export function prisma6OrOlder(client: object): string | undefined {
  const version = (client as ClientInternals)._clientVersion;
  return typeof version === 'string' && /^[0-6]\./.test(version) ? version : undefined;
}

/** The client's runtime data model; `Prisma.dmmf` (prisma-client-js) is the same data, reshaped. */
export function runtimeDataModel(client: object): RuntimeDataModel | undefined {
  const model = (client as ClientInternals)._runtimeDataModel;
  return model && typeof model === 'object' && model.models ? model : undefined;
}

/** The schema text the client was generated from: no public property carries it. */
export function embeddedSchemaText(client: object): string | undefined {
  return (client as ClientInternals)._engineConfig?.inlineSchema || undefined;
}

/** The driver adapter factory the client was given: the client options are not public either. */
export function clientDriverAdapter(client: object): unknown {
  return (client as ClientInternals)._engineConfig?.adapter;
}

function missing(what: string, source: string): FastTestDbError {
  return new FastTestDbError(
    'BAD_OPTION',
    `fastInsert: ${what} of the Prisma client is not in ${source}`,
    'generate the client from this schema again (prisma generate), or pass the schema it was generated from',
  );
}

/**
 * The schema fastInsert plans from: models, fields, kinds, types and database names as the
 * client knows them (fields @ignore or Unsupported are not in it, as they are not in the client),
 * with the attributes the runtime data model drops taken from the schema text.
 */
export function mergeSchema(runtime: RuntimeDataModel, text: PrismaSchemaText, source: string): PrismaSchema {
  const models = new Map<string, PrismaModel>();
  for (const [name, rm] of Object.entries(runtime.models)) {
    const tm = text.models.get(name);
    if (!tm) throw missing(`model ${name}`, source);
    const fields: PrismaField[] = rm.fields.map((rf) => {
      const tf = tm.fields.get(rf.name);
      if (!tf) throw missing(`field ${name}.${rf.name}`, source);
      return { ...tf, name: rf.name, dbName: rf.dbName ?? rf.name, type: rf.type, kind: rf.kind };
    });
    models.set(name, { name, dbName: rm.dbName ?? name, schema: rm.schema ?? tm.schema, fields, primaryKey: tm.primaryKey });
  }
  return { provider: text.provider, models, enums: text.enums };
}

/**
 * The client's schema: its runtime data model completed by the schema text it embeds, else by
 * `fromFile` (the text of the schema file given to prismaClient/prismaTestDb).
 */
export function clientSchema(client: object, fromFile?: PrismaSchemaText): PrismaSchema | undefined {
  const runtime = runtimeDataModel(client);
  const inline = embeddedSchemaText(client);
  const text = inline ? parsePrismaSchema(inline) : fromFile;
  if (!runtime || !text) return undefined;
  return mergeSchema(runtime, text, inline ? 'the schema it embeds' : 'the schema file given');
}
