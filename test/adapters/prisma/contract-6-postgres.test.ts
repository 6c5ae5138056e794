/**
 * The adapter contract for Prisma 6.19 on PostgreSQL, with driver adapters and engineType "client",
 * installed as prisma-6, prisma-client-6 and prisma-adapter-pg-6 (Prisma 6 on MariaDB is refused:
 * test/adapters/prisma/zoo-suite.ts).
 */
import { installedVersion, useInstalled } from '../../helpers/installed-version.js';

// Every runtime entry the generated client imports (the query compiler is WebAssembly: no native engine).
await useInstalled('@prisma/client', 'prisma-client-6', [
  'runtime/client',
  'runtime/query_compiler_bg.postgresql.mjs',
  'runtime/query_compiler_bg.postgresql.wasm-base64.mjs',
]);
await useInstalled('@prisma/adapter-pg', 'prisma-adapter-pg-6');
const { adapterContract } = await import('../contract.js');
const { prismaFixture } = await import('./contract.js');
adapterContract(prismaFixture('postgres', installedVersion('prisma-6'), { cli: { package: 'prisma-6' }, major6: true }));
