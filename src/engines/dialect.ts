/**
 * The flat view of an engine's server roles that the runners and the CLI still use: `Dialect` is
 * `ServerRoles` flattened, built from them in index.ts (dialectFor), and carries the roles
 * themselves too, so that it can be handed to the core, which takes roles. New code takes the
 * roles it needs from engine.ts instead; this file goes once no caller uses it.
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
  ServerRoles,
  Swap,
  TemplateStore,
} from './engine.js';

export type { SqlClient } from './engine.js';
export * from './marker.js';

export type Dialect<C extends SqlClient = SqlClient> = ServerRoles<C> & {
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
