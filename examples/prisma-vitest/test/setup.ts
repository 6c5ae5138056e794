// Runs after fast-test-db/vitest's own setup file, which has put this worker's database (a clone
// of the template that ran prisma/migrations) in DATABASE_URL and empties it before each test.
import { afterAll } from 'vitest';
import { prismaClient } from 'fast-test-db/prisma';
import { PrismaClient } from '../generated/prisma/client.js';

const t = await prismaClient({ client: PrismaClient, database: process.env.DATABASE_URL! });

export const prisma = t.prisma;

afterAll(async () => {
  await t.close();
});
