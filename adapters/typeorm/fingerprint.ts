/**
 * What identifies the schema a TypeORM project builds, computed offline before any server exists:
 * - with migrations: each migration's name and class source;
 * - otherwise: the entity metadata the schema builder turns into DDL (tables, columns, indices,
 *   uniques, checks, exclusions, foreign keys, views), with the TypeORM version.
 * The schema builder itself cannot be asked for its SQL here: it diffs against a live database, and
 * the fingerprint must be known before the template database (or even the server) exists.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DataSource, DataSourceOptions } from 'typeorm';

/**
 * 'both': the migrations, then synchronize for what they leave out. 'synchronize-then-migrations':
 * synchronize builds the schema, then the migrations run on it (seed migrations that insert rows).
 */
export type SchemaSource = 'migrations' | 'synchronize' | 'both' | 'synchronize-then-migrations';

/** Own primitive fields of a metadata object; references to other metadata objects are left out. */
function primitives(obj: object, skip: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj).sort()) {
    if (skip.has(key)) continue;
    const v = (obj as Record<string, unknown>)[key];
    if (v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[key] = v;
    else if (typeof v === 'function') {
      // Column types given as constructors (String, Number) and defaults given as SQL functions.
      out[key] =
        key === 'default' ? `fn:${String((v as () => unknown)())}` : key === 'type' ? `ctor:${(v as { name: string }).name}` : undefined;
    } else if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) out[key] = v;
    else if (v instanceof RegExp || v instanceof Date) out[key] = String(v);
  }
  return out;
}

/** Back-references and runtime-only fields, which carry no DDL. */
const SKIP = new Set(['target', 'isAlwaysUsingConstructor']);

function describeSchema(ds: DataSource): unknown {
  const driver = ds.driver;
  const names = (cols: Array<{ databaseName: string }> | undefined) => (cols ?? []).map((c) => c.databaseName);
  return [...ds.entityMetadatas]
    .sort((a, b) => a.tablePath.localeCompare(b.tablePath) || a.name.localeCompare(b.name))
    .map((m) => ({
      entity: primitives(m, SKIP),
      view: typeof m.expression === 'function' ? String(m.expression) : m.expression,
      columns: m.columns.map((c) => ({
        ...primitives(c, SKIP),
        normalizedType: driver.normalizeType(c),
        normalizedDefault: safe(() => driver.normalizeDefault(c)),
        referenced: c.referencedColumn?.databaseName,
      })),
      indices: m.indices.map((i) => ({ ...primitives(i, SKIP), columns: names(i.columns) })),
      uniques: m.uniques.map((u) => ({ ...primitives(u, SKIP), columns: names(u.columns) })),
      checks: m.checks.map((c) => primitives(c, SKIP)),
      exclusions: m.exclusions.map((e) => primitives(e, SKIP)),
      foreignKeys: m.foreignKeys.map((f) => ({
        ...primitives(f, SKIP),
        columns: f.columnNames,
        referencedTable: f.referencedTablePath,
        referencedColumns: f.referencedColumnNames,
      })),
    }));
}

function safe<T>(fn: () => T): T | string {
  try {
    return fn();
  } catch (e) {
    return `error:${(e as Error).message}`;
  }
}

function describeMigrations(ds: DataSource): unknown {
  return ds.migrations.map((m) => ({ name: m.name ?? m.constructor.name, source: m.constructor.toString() }));
}

/** Installed TypeORM version: a new TypeORM may write different DDL for the same entities. */
export function typeormVersion(): string {
  try {
    const req = createRequire(join(process.cwd(), 'noop.js'));
    const main = req.resolve('typeorm');
    return (JSON.parse(readFileSync(join(dirname(main), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Builds the metadata of `options` on a DataSource that never connects, decides what the template
 * is built from (as the app's own initialize() would, unless `forced`), and hashes that.
 */
export async function inspectSchema(
  DataSourceClass: new (o: DataSourceOptions) => DataSource,
  options: DataSourceOptions,
  forced?: SchemaSource,
): Promise<{ source: SchemaSource; fingerprint: string }> {
  // The database name is the worker's, not part of the schema: a fixed one keeps the hash stable
  // (and MySQL's metadata validator insists on having one).
  // Subscribers carry no schema; leaving them out keeps their constructors from running twice.
  const ds = new DataSourceClass({ ...options, url: undefined, database: 'fingerprint', subscribers: [] } as DataSourceOptions);
  await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  const source: SchemaSource = forced ?? (ds.migrations.length === 0 ? 'synchronize' : options.synchronize ? 'both' : 'migrations');
  const o = options as DataSourceOptions & { schema?: string; migrationsTableName?: string };
  const parts = {
    typeorm: typeormVersion(),
    type: o.type,
    schema: o.schema,
    source,
    migrationsTable: o.migrationsTableName,
    migrations: source === 'synchronize' ? undefined : describeMigrations(ds),
    tables: source === 'migrations' ? undefined : describeSchema(ds),
  };
  return { source, fingerprint: createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24) };
}
