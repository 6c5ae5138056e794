import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of fast-test-db's own code (src/ from source, dist/ when built), where the files we
 * spawn or hand to runners by path live. A plain `typeof __dirname` test is not enough: generated
 * Prisma clients assign globalThis.__dirname, which an ES module would then take for its own.
 */
export function here(): string {
  const cjs = typeof __dirname === 'string' && !Object.hasOwn(globalThis, '__dirname');
  return cjs ? __dirname : dirname(fileURLToPath(import.meta.url));
}
