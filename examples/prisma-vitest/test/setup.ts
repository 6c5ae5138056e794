// One database per Vitest worker, cloned from a template that ran prisma/migrations once.
// Every test starts from empty tables.
import { afterAll, beforeEach } from 'vitest';
import { fileURLToPath } from 'node:url';
import { prismaTestDb } from 'fast-test-db/prisma';
import { PrismaClient } from '../generated/prisma/client.js';

const t = await prismaTestDb({
  client: PrismaClient,
  schema: fileURLToPath(new URL('../prisma/schema.prisma', import.meta.url)),
});

export const prisma = t.prisma;
export const db = t.db;

beforeEach(async () => {
  await db.reset();
});

afterAll(async () => {
  await t.close();
});
