/**
 * The Prisma fixture of the adapter contract: the zoo's Account model (an autoincrement() key and a
 * unique email) on a generated client, from prismaTestDb, or from prismaClient on a database that
 * exists. The client's pool is the adapter's own and not reachable here: Prisma's statement counts
 * are asserted in test/adapters/prisma/zoo-suite.ts, on a pool the test makes.
 */
import { fastInsert, prismaClient, prismaTestDb } from '../../../adapters/prisma/index.js';
import type { EngineName } from '../../../src/types.js';
import { ensureGenerated, prisma6Schema, type PrismaCli } from './generate.js';
import type { AdapterFixture, OrmSession, Row } from '../contract.js';

/** Another Prisma than the installed one: the CLI that generates its clients, and whether it is Prisma 6 (its own form of the schema). */
export interface PrismaUnder {
  cli?: PrismaCli;
  major6?: boolean;
}

export function prismaFixture(engine: EngineName, version: string, under: PrismaUnder = {}): AdapterFixture {
  const source = `test/adapters/prisma/zoo/${engine}/schema.prisma`;
  const schema = under.major6 ? prisma6Schema(source) : source;
  const client = async () =>
    (
      (await import(/* @vite-ignore */ `${ensureGenerated(schema, under.cli)}/client.ts`)) as {
        PrismaClient: new (o: { adapter: never }) => any;
      }
    ).PrismaClient;
  const session = (prisma: any, close: () => Promise<void>): OrmSession => ({
    text: 'email',
    key: 'id',
    insert: (rows, o) => fastInsert(prisma.account, rows as never, o as never),
    stored: async (prefix) =>
      (await prisma.account.findMany({ where: { email: { startsWith: prefix } }, orderBy: { id: 'asc' } })).map((r: Row) => [
        Number(r.id),
        r.email,
      ]),
    query: (sql) => prisma.$queryRawUnsafe(sql),
    close,
  });
  return {
    orm: 'Prisma',
    version,
    engine,
    async open(worker) {
      const t = await prismaTestDb({
        client: await client(),
        schema,
        migrations: `test/adapters/prisma/zoo/${engine}/migrations`,
        worker,
        suffix: worker,
        cacheKey: `prisma-${version}`,
      });
      return { ...session(t.prisma, t.close), database: t.database, dispose: async () => await t[Symbol.asyncDispose]() };
    },
    async attach(database) {
      const handle = await prismaClient({ client: await client(), database: database.connection, flavor: database.server.flavor });
      return session(handle.prisma, handle.close);
    },
    // The same email again: the unique index refuses it.
    refused: (value) => ({ email: value }),
    rollsBack: false,
  };
}
