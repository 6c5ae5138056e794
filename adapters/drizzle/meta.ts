/**
 * Reads Drizzle's table and column metadata through its global symbols and entity kinds, so
 * that this adapter needs no runtime import of drizzle-orm (and works with whichever copy,
 * ESM or CJS, the user's schema was built with).
 */

const ENTITY_KIND = Symbol.for('drizzle:entityKind');
const TABLE_NAME = Symbol.for('drizzle:Name');
const TABLE_SCHEMA = Symbol.for('drizzle:Schema');
const TABLE_COLUMNS = Symbol.for('drizzle:Columns');

/** The part of a Drizzle column this adapter relies on (public fields of drizzle-orm's Column). */
export interface DrizzleColumn {
  name: string;
  keyAsName: boolean;
  primary: boolean;
  notNull: boolean;
  default: unknown;
  hasDefault: boolean;
  defaultFn?: () => unknown;
  onUpdateFn?: () => unknown;
  /** MySQL only. */
  autoIncrement?: boolean;
  table: object;
  shouldDisableInsert(): boolean;
  mapToDriverValue(value: unknown): unknown;
  mapFromDriverValue(value: unknown): unknown;
}

/** True when `value` is an instance of the Drizzle class whose entity kind is `kind` (or a subclass). */
export function isKind(value: unknown, kind: string): boolean {
  if (!value || typeof value !== 'object') return false;
  let cls = Object.getPrototypeOf(value)?.constructor;
  while (cls) {
    if (ENTITY_KIND in cls && cls[ENTITY_KIND] === kind) return true;
    cls = Object.getPrototypeOf(cls);
  }
  return false;
}

/** Entity kind of the object's own class, e.g. 'NodePgSession'. */
export function kindOf(value: unknown): string | undefined {
  const cls =
    value && typeof value === 'object' ? (Object.getPrototypeOf(value)?.constructor as Record<symbol, unknown> | undefined) : undefined;
  const kind = cls?.[ENTITY_KIND];
  return typeof kind === 'string' ? kind : undefined;
}

export function isTable(value: unknown): boolean {
  return isKind(value, 'Table');
}

export function tableName(table: object): string {
  return (table as Record<symbol, string>)[TABLE_NAME]!;
}

export function tableSchema(table: object): string | undefined {
  return (table as Record<symbol, string | undefined>)[TABLE_SCHEMA];
}

/** Columns by property key, in declaration order. */
export function tableColumns(table: object): Array<[string, DrizzleColumn]> {
  return Object.entries((table as Record<symbol, Record<string, DrizzleColumn>>)[TABLE_COLUMNS] ?? {});
}
