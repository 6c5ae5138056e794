/**
 * A `migrate` written for one engine, run against a server of another (`start --engine mysql` in
 * a project whose migrate uses pg), fails with the other driver's protocol confusion, e.g.
 * `Received unexpected copyData message from backend`, which names neither engine. When an error
 * of a template build has the shape the server's engine knows for it (ErrorCodes.foreignClient),
 * say what really happened.
 */
import { ENGINES, engineFor } from '../engines/index.js';
import { FastTestDbError, isFastTestDbError, messageOf } from '../errors.js';
import type { EngineName } from '../types.js';

function chain(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++)
    parts.push(`${messageOf(c)} ${(c as { code?: unknown }).code ?? ''}`);
  return parts.join(' | ');
}

/** `e` itself, or an error saying that the migrate and the server's engine disagree. */
export function explainEngineMismatch(e: unknown, name: EngineName): unknown {
  const server = engineFor(name);
  if (!isFastTestDbError(e, 'MIGRATION_FAILED') || !server.errors.foreignClient.test(chain(e))) return e;
  // The engines the migrate may be written for: every one but the server's.
  const other = Object.values(ENGINES).find((candidate) => candidate !== server)!;
  return new FastTestDbError(
    'MIGRATION_FAILED',
    `the engine and the migrate disagree: the server is ${server.label}, and migrate failed the way a ${other.label} client does when it reaches one (${messageOf((e as { cause?: unknown }).cause ?? e)})`,
    `use the engine the migrate is written for (--engine ${other.name}, engine: '${other.name}' in the config, or FAST_TEST_DB_ENGINE=${other.name}), or give a migrate for ${server.label}`,
    { cause: e },
  );
}
