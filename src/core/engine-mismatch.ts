/**
 * A `migrate` written for one engine, run against a server of the other (`start --engine mysql` in
 * a project whose migrate uses pg), fails with the other driver's protocol confusion, e.g.
 * `Received unexpected copyData message from backend`, which names neither engine. When an error
 * of a template build has that shape, say what really happened.
 */
import { FastTestDbError, isFastTestDbError, messageOf } from '../errors.js';
import type { Engine } from '../types.js';
import { ENGINE_LABEL } from '../engines/labels.js';

/** What a client of the other engine says when it reaches a server of `engine`. */
const FOREIGN_CLIENT: Record<Engine, RegExp> = {
  // mysql2 and mariadb wait for a greeting that PostgreSQL never sends; the packet parser may also trip.
  postgres: /\bETIMEDOUT\b|connect(ion)? timeout|greeting|Malformed communication packet|Packets out of order/i,
  // node-postgres and postgres.js read MySQL's greeting as PostgreSQL messages.
  mysql: /unexpected \w+ message from backend|Connection terminated unexpectedly|Unknown Message/i,
};

function chain(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++)
    parts.push(`${messageOf(c)} ${(c as { code?: unknown }).code ?? ''}`);
  return parts.join(' | ');
}

/** `e` itself, or an error saying that the migrate and the server's engine disagree. */
export function explainEngineMismatch(e: unknown, engine: Engine): unknown {
  if (!isFastTestDbError(e, 'MIGRATION_FAILED') || !FOREIGN_CLIENT[engine].test(chain(e))) return e;
  const other: Engine = engine === 'postgres' ? 'mysql' : 'postgres';
  return new FastTestDbError(
    'MIGRATION_FAILED',
    `the engine and the migrate disagree: the server is ${ENGINE_LABEL[engine]}, and migrate failed the way a ${ENGINE_LABEL[other]} client does when it reaches one (${messageOf((e as { cause?: unknown }).cause ?? e)})`,
    `use the engine the migrate is written for (--engine ${other}, engine: '${other}' in the config, or FAST_TEST_DB_ENGINE=${other}), or give a migrate for ${ENGINE_LABEL[engine]}`,
    { cause: e },
  );
}
