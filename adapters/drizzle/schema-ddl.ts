/**
 * The DDL drizzle-kit would generate for a schema module, computed offline (no database):
 * drizzle-kit/api diffs an empty snapshot against the schema's snapshot. Used when there is no
 * migrations folder, both to build the template and as its fingerprint.
 */
import { FastTestDbError, loadPeer, messageOf, type SqlFamily } from '../../src/adapter-kit.js';

export type Casing = 'snake_case' | 'camelCase';

export async function schemaDdl(schema: Record<string, unknown>, family: SqlFamily, casing?: Casing): Promise<string[]> {
  const mod = await loadPeer<any>('drizzle-kit/api', 'Building the schema without a migrations folder');
  const kit = typeof mod.generateDrizzleJson === 'function' ? mod : mod.default;
  try {
    if (family === 'postgres') {
      return await kit.generateMigration(kit.generateDrizzleJson({}), kit.generateDrizzleJson(schema, undefined, undefined, casing));
    }
    return await kit.generateMySQLMigration(
      await kit.generateMySQLDrizzleJson({}),
      await kit.generateMySQLDrizzleJson(schema, undefined, casing),
    );
  } catch (e) {
    throw new FastTestDbError(
      'MIGRATION_FAILED',
      `drizzle-kit could not generate DDL for the schema: ${messageOf(e)}`,
      'check that `schema` is the module with your tables (import * as schema from "./schema"), or pass `migrationsFolder` with the output of drizzle-kit generate',
      { cause: e },
    );
  }
}
