/**
 * The flat view of an engine's server roles that callers written before the role split still use:
 * `Dialect` is `ServerRoles` flattened, built from them in index.ts (dialectFor). New code takes the
 * role it needs from engine.ts instead; this file goes once no caller uses it.
 */
import type { ServerInfo } from '../types.js';
import type { EngineName } from './engine.js';
import type {
  Connector,
  DatabaseTuner,
  Inspector,
  Locks,
  Logins,
  MarkerStore,
  Resetter,
  SqlClient,
  Swap,
  TemplateStore,
} from './engine.js';

export type { SqlClient } from './engine.js';
export * from './marker.js';

export type Dialect<C extends SqlClient = SqlClient> = {
  readonly engine: EngineName;
  url: (server: ServerInfo, database: string) => string;
} & Connector<C> &
  Locks<C> &
  TemplateStore<C> &
  MarkerStore<C> &
  Resetter<C> &
  Omit<Inspector<C>, 'openSessions'> &
  Logins<C> &
  DatabaseTuner<C> & {
    renameDatabases?: Swap<C>['renameDatabases'];
    endConnections?: Swap<C>['endConnections'];
    openSessions?: Inspector<C>['openSessions'];
  };
