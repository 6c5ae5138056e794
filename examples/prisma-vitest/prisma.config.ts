// Used by the Prisma CLI (generate, migrate). Tests do not need DATABASE_URL: fast-test-db
// starts its own server and hands the client a connection.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
