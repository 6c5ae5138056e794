/** How a PostgreSQL INSERT is spelled and what it answers, for the adapters' fast inserts. */
import type { Inserts } from '../engine.js';

export const inserts: Inserts = {
  param: (n) => `$${n}`,
  defaultRows: (rows) => (rows === 1 ? ' DEFAULT VALUES' : ` VALUES ${Array.from({ length: rows }, () => '(DEFAULT)').join(', ')}`),
  defaultRowsPerStatement: 1,
  returning: true,
  returningOn: () => true,
  tableNamespace: 'schema',
  coalesce: true,
  zonedTimestamps: true,
  nativeBoolean: true,
  tableExistsSql: 'SELECT 1 AS x FROM pg_catalog.pg_tables WHERE tablename = $1 AND schemaname = current_schema()',
};
