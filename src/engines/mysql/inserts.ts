/** How a MySQL/MariaDB INSERT is spelled and what it answers, for the adapters' fast inserts. */
import type { Inserts } from '../engine.js';

export const inserts: Inserts = {
  param: () => '?',
  defaultRows: (rows) => ` () VALUES ${Array.from({ length: rows }, () => '()').join(', ')}`,
  defaultRowsPerStatement: 1000,
  returning: false,
  // MariaDB answers INSERT … RETURNING (10.5+); MySQL does not.
  returningOn: (flavor) => flavor === 'mariadb',
  tableNamespace: 'database',
  // A multi-row INSERT outside strict mode turns a NULL for a NOT NULL column into a warning, and its keys follow auto_increment_increment.
  coalesce: false,
  zonedTimestamps: false,
  nativeBoolean: false,
  tableExistsSql: 'SELECT 1 AS x FROM information_schema.tables WHERE table_name = ? AND table_schema = DATABASE()',
};
