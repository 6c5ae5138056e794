/**
 * What both engines' tuning shares. Each engine's non-durable settings live in its own tuning.ts
 * (postgres/tuning.ts, mysql/tuning.ts): they are only ever passed as command-line flags to
 * servers we start ourselves (embedded or container), so they can never leak into a config file
 * that reaches production. Servers we do not own get only per-database, reversible settings.
 */

/** max_connections of the servers we start, both engines: room for many workers, each with a pool. */
export const DEFAULT_MAX_CONNECTIONS = 300;

/**
 * The time zone our servers start in: the official images run in UTC (a container has no local
 * zone), so answers that depend on the session zone are those of production, not of the laptop.
 */
export const SERVER_TIME_ZONE = 'Etc/UTC';
