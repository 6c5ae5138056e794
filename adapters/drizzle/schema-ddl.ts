/**
 * The DDL drizzle-kit would generate for a schema module, computed offline (no database):
 * drizzle-kit/api diffs an empty snapshot against the schema's snapshot. Used when there is no
 * migrations folder, both to build the template and as its fingerprint. A role the other adapters
 * lack: TypeORM's schema builder and Prisma's schema engine need a live database for this.
 */
import { FastTestDbError, loadPeer, messageOf, type SqlFamily } from '../../src/adapter-kit.js';
import { defaultDriver, DRIVERS, type Casing } from './driver.js';

/** drizzle-kit/api's generator per Drizzle dialect, by the entity kind of its tables: the statements that turn an empty database into `schema`. */
const GENERATORS: Record<string, (kit: any, schema: Record<string, unknown>, casing?: Casing) => Promise<string[]>> = {
  PgTable: async (kit, schema, casing) =>
    kit.generateMigration(kit.generateDrizzleJson({}), kit.generateDrizzleJson(schema, undefined, undefined, casing)),
  MySqlTable: async (kit, schema, casing) =>
    kit.generateMySQLMigration(await kit.generateMySQLDrizzleJson({}), await kit.generateMySQLDrizzleJson(schema, undefined, casing)),
};

export async function schemaDdl(schema: Record<string, unknown>, family: SqlFamily, casing?: Casing): Promise<string[]> {
  const generate = GENERATORS[DRIVERS[defaultDriver(family)].tables]!;
  const mod = await loadPeer<any>('drizzle-kit/api', 'Building the schema without a migrations folder');
  const kit = typeof mod.generateDrizzleJson === 'function' ? mod : mod.default;
  try {
    return await generate(kit, schema, casing);
  } catch (e) {
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `drizzle-kit could not generate DDL for the schema: ${messageOf(e)}`,
      'check that `schema` is the module with your tables (import * as schema from "./schema"), or pass `migrationsFolder` with the output of drizzle-kit generate',
      { cause: e },
    );
  }
}
