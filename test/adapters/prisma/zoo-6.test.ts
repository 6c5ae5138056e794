/**
 * The Prisma equivalence zoo on Prisma 6.19 with driver adapters and engineType "client" (no
 * native engine), installed as prisma-6, prisma-client-6 and prisma-adapter-{pg,mariadb}-6.
 */
import { installedVersion, useInstalled } from '../../helpers/installed-version.js';

// Every runtime entry the generated clients import (the query compiler is WebAssembly: no native engine).
await useInstalled('@prisma/client', 'prisma-client-6', [
  'runtime/client',
  ...['postgresql', 'mysql'].flatMap((db) => [`runtime/query_compiler_bg.${db}.mjs`, `runtime/query_compiler_bg.${db}.wasm-base64.mjs`]),
]);
const { PrismaPg } = await useInstalled('@prisma/adapter-pg', 'prisma-adapter-pg-6');
await useInstalled('@prisma/adapter-mariadb', 'prisma-adapter-mariadb-6');
const { prismaZooSuite } = await import('./zoo-suite.js');
prismaZooSuite({ version: installedVersion('prisma-6'), cli: { package: 'prisma-6' }, major6: true, PrismaPg });
