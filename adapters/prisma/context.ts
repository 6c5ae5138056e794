/**
 * What fastInsert needs besides a driver: the schema (the client's runtime data model, completed
 * by the schema text it embeds, else by the file given) and Prisma's Decimal; and the clients and
 * model delegates prismaTestDb or prismaClient made, so that fastInsert finds their pool and schema.
 * A role the other adapters lack: a Prisma delegate carries neither its table's metadata (as a
 * TypeORM repository does) nor its driver (as a Drizzle instance does).
 */
import { FastTestDbError, loadPeer } from '../../src/adapter-kit.js';
import type { PrismaDriver } from './driver.js';
import type { FastInsertContext } from './plan.js';
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
  return { schema, driver, Decimal: runtime.Decimal, parseTextArray: driver.parseTextArray, plans: new Map() };
}

export interface Registered {
  ctx: () => Promise<FastInsertContext>;
  /** Set once ctx() resolved: the per-row path then awaits nothing before the driver. */
  ready: { value?: FastInsertContext };
  model?: string;
}

/** Clients and model delegates made by prismaTestDb or prismaClient (keyed by the object: a client's go with it). */
const registry = new WeakMap<object, Registered>();

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** Registers a client of ours and its delegates; fastInsert's context is built on first use. */
export function registerClient(prisma: object, fromFile: PrismaSchemaText | undefined, driver: PrismaDriver): void {
  let ctxPromise: Promise<FastInsertContext> | undefined;
  const ready: Registered['ready'] = {};
  const ctx = () => (ctxPromise ??= buildContext(prisma, fromFile, driver).then((c) => (ready.value = c)));
  registry.set(prisma, { ctx, ready });
  const models = fromFile?.models.keys() ?? inlineSchema(prisma)?.models.keys() ?? [];
  for (const model of models) {
    const delegate = (prisma as Record<string, unknown>)[lowerFirst(model)];
    if (delegate && typeof delegate === 'object') registry.set(delegate, { ctx, ready, model });
  }
}

/** What was registered for a client or delegate of ours, if it is one. */
export function registered(value: unknown): Registered | undefined {
  return value && typeof value === 'object' ? registry.get(value) : undefined;
}
