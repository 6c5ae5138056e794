/** How messages name each engine and its sessions: the words live with the engines, not in each message. */
import type { Engine } from '../types.js';

export const ENGINE_LABEL: Record<Engine, string> = { postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB' };

/** What OpenSession.pid is on each engine: PostgreSQL's server process, MySQL's connection id. */
export const SESSION_ID_NAME: Record<Engine, string> = { postgres: 'pid', mysql: 'connection' };
