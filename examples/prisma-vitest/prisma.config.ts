// Used by the Prisma CLI (generate, migrate). Tests need no DATABASE_URL of yours: fast-test-db
// sets it, in each Vitest worker, to that worker's own database.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
