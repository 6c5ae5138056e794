/**
 * The equivalence zoo: for every kind of column, fastInsert writes the row create() writes and
 * returns the record create() returns, on PostgreSQL and on MariaDB. Values that are random or
 * time-based by design (generated ids, now()) are compared by format and time window.
 *
 * One suite for every Prisma major: zoo.test.ts runs it on the installed Prisma 7, zoo-6.test.ts on
 * Prisma 6 with driver adapters, installed under aliases (test/helpers/installed-version.ts).
 */
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastInsert, prismaClient, prismaTestDb, type PrismaTestDb } from '../../../adapters/prisma/index.js';
import { runtimeDataModel } from '../../../adapters/prisma/runtime-model.js';
import { openDriver, type PrismaDriver } from '../../../adapters/prisma/driver.js';
import { isFastTestDbError } from '../../../src/errors.js';
import { ensureGenerated, prisma6Schema, type PrismaCli } from './generate.js';
import { countInserts } from '../../helpers/insert-counter.js';

type Engine = 'postgres' | 'mysql';
type Row = Record<string, unknown>;

/** Fields whose values differ between two inserts by design, and how to compare them. */
const GENERATED: Record<string, RegExp> = {
  'Post.id': /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  'Post.slug': /^c[a-z0-9]{24}$/,
  'Post.ref': /^[A-Za-z0-9_-]{21}$/,
  'Post.ref7': /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  'Post.sortKey': /^[0-9A-HJKMNP-TV-Z]{26}$/,
  'Post.cuid2': /^[a-z][a-z0-9]{23}$/,
  'Post.short': /^[A-Za-z0-9_-]{8}$/,
};
const NOW_FIELDS = new Set(['Account.createdAt', 'Account.updatedAt', 'Membership.since']);
const AUTO_IDS = new Set(['Account.id', 'Counter.id']);

/** Replaces by-design differences with stable markers, after checking them. */
function normalize(model: string, rec: Row, suffix: string, started: number): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(rec)) {
    const key = `${model}.${k}`;
    if (GENERATED[key] && typeof v === 'string' && !v.startsWith('given')) {
      expect(v, key).toMatch(GENERATED[key]!);
      out[k] = `<${key}>`;
    } else if (NOW_FIELDS.has(key) && v instanceof Date && Math.abs(v.getTime() - started) < 60_000 && v.getTime() > 1e12) {
      out[k] = '<now>';
    } else if (AUTO_IDS.has(key) && typeof v === 'number') {
      expect(v).toBeGreaterThan(0);
      out[k] = '<auto>';
    } else if (typeof v === 'string') out[k] = v.replaceAll(suffix, '<s>');
    else if (v instanceof Uint8Array) out[k] = { bytes: [...v] };
    else if (v && typeof v === 'object' && typeof (v as { toFixed?: unknown }).toFixed === 'function' && 'd' in v)
      out[k] = { decimal: String(v) };
    else if (typeof v === 'bigint') out[k] = { bigint: String(v) };
    else out[k] = v;
  }
  return out;
}

export interface PrismaUnderTest {
  /** The version the generated clients report: that of the CLI that generated them, e.g. '7.10.1'. */
  version: string;
  /** Which CLI generates the clients. */
  cli?: PrismaCli;
  /** Prisma 6 needs its own form of the schema (see prisma6Schema). */
  major6?: boolean;
  /** PrismaPg of the copy under test: the adapter fast-test-db builds must be one of these. */
  PrismaPg: unknown;
}

export function prismaZooSuite(under: PrismaUnderTest): void {
  const tag = under.version.replace(/\W/g, '');
  const source = (engine: Engine) => `test/adapters/prisma/zoo/${engine}/schema.prisma`;
  const schemaOf = (engine: Engine) => (under.major6 ? prisma6Schema(source(engine)) : source(engine));

  async function loadClient(engine: Engine) {
    const out = ensureGenerated(schemaOf(engine), under.cli);
    const path = `${out}/client.ts`;
    return (await import(/* @vite-ignore */ path)) as {
      PrismaClient: new (o: { adapter: never }) => any;
      Prisma: { JsonNull: unknown; DbNull: unknown; Decimal: new (v: string) => unknown };
    };
  }

  if (under.major6) {
    it('Prisma 6 on MySQL/MariaDB is refused with UNSUPPORTED, naming the upgrade', async () => {
      const mod = await loadClient('mysql');
      // Refused before any connection is made: no server is needed to see it.
      const err = await prismaClient({ client: mod.PrismaClient, database: 'mariadb://root@127.0.0.1:1/never' }).catch((e: unknown) => e);
      expect(isFastTestDbError(err, 'UNSUPPORTED'), String(err)).toBe(true);
      expect((err as Error).message).toContain(under.version);
      expect((err as { fix?: string }).fix ?? String(err)).toMatch(/\^7\.10\.0/);
    });
  }
  // @prisma/adapter-mariadb 6 cannot share a pool (see above): Prisma 6 runs the PostgreSQL half.
  for (const engine of (under.major6 ? ['postgres'] : ['postgres', 'mysql']) as Engine[]) {
    describe(`Prisma fastInsert equivalence on ${engine}, Prisma ${under.version}`, () => {
      let t: PrismaTestDb<any>;
      let prisma: any;
      let Prisma: Awaited<ReturnType<typeof loadClient>>['Prisma'];
      let mod: Awaited<ReturnType<typeof loadClient>>;
      let account: { id: number };
      const pg = engine === 'postgres';
      /**
       * The app's own clients, as a NestJS PrismaService builds them (a subclass of PrismaClient on a
       * driver adapter): one given connection settings, one given a pool.
       */
      const apps: Record<string, any> = {};
      let appPool: PrismaDriver | undefined;

      beforeAll(async () => {
        mod = await loadClient(engine);
        Prisma = mod.Prisma;
        t = await prismaTestDb({
          client: mod.PrismaClient,
          schema: schemaOf(engine),
          migrations: `test/adapters/prisma/zoo/${engine}/migrations`,
          suffix: `prismazoo${tag}`,
        });
        prisma = t.prisma;
        account = await prisma.account.create({ data: { email: `owner-${engine}@x.io` } });
        const c = t.database.connection;
        const settings = pg
          ? new PrismaPg({ connectionString: t.database.url })
          : new PrismaMariaDb({
              ...(c.host.startsWith('/') ? { socketPath: c.host } : { host: c.host, port: c.port }),
              user: c.user,
              password: c.password,
              database: c.database,
            });
        class PrismaService extends mod.PrismaClient {
          constructor(adapter: unknown) {
            super({ adapter: adapter as never });
          }
        }
        apps['app client, adapter settings'] = new PrismaService(settings);
        // A pool the app made and handed to its adapter, as a NestJS module that shares one does.
        appPool = await openDriver(t.database.connection, t.database.server.flavor);
        apps['app client, adapter pool'] = new PrismaService(
          pg ? new PrismaPg(appPool.pool as never) : new PrismaMariaDb(appPool.pool as never),
        );
      });
      afterAll(async () => {
        for (const app of Object.values(apps)) await app.$disconnect();
        await appPool?.end();
        await t?.close();
        await t?.database.destroy({ force: true });
      });

      it(`the adapter runs on Prisma ${under.version}`, () => {
        expect(prisma._clientVersion).toBe(under.version);
        if (pg) expect(prisma._engineConfig.adapter).toBeInstanceOf(under.PrismaPg);
      });

      it(`gap: the runtime data model of a Prisma ${under.version} client carries no @default, @id, @updatedAt, list, optional or native type`, () => {
        // What the schema text must supply (adapters/prisma/runtime-model.ts); fails when Prisma ships it.
        const model = runtimeDataModel(prisma)!.models.Account!;
        expect(model.fields.find((f) => f.name === 'createdAt')).toEqual({
          name: 'createdAt',
          kind: 'scalar',
          type: 'DateTime',
          dbName: 'created_at',
        });
        for (const f of model.fields)
          expect(
            Object.keys(f).filter((k) => !['name', 'kind', 'type', 'dbName', 'relationName'].includes(k)),
            f.name,
          ).toEqual([]);
        // Prisma 6 drops @@schema too (the schema text supplies it); Prisma 7 keeps it.
        expect(Object.keys(model).sort()).toEqual(under.major6 ? ['dbName', 'fields'] : ['dbName', 'fields', 'schema']);
        expect(runtimeDataModel(prisma)!.enums).toEqual({});
      });

      /** Each case: model, primary key fields, and data made unique by a suffix. */
      const cases: Array<{ name: string; model: string; delegate: string; pk: string[]; data: (s: string) => Row; pgOnly?: boolean }> = [
        {
          name: 'only required fields; every default filled',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({ email: `min-${s}@x.io` }),
        },
        {
          name: 'every scalar kind given',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({
            email: `full-${s}@x.io`,
            name: `Zoë "quoted" \\ ${s}`,
            role: 'ADMIN',
            balance: '1234.565',
            big: 9007199254740993n,
            avatar: new Uint8Array([0, 1, 254, 255]),
            profile: { nested: { list: [1, 'two', null, true] }, unicode: '✓' },
            score: -0.125,
            active: false,
          }),
        },
        {
          name: 'scalar lists and enum lists',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          pgOnly: true,
          data: (s) => ({ email: `list-${s}@x.io`, tags: ['a', 'b,c', 'd"e', ''], roles: ['ADMIN', 'USER'] }),
        },
        {
          name: 'scalar list in { set } form',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          pgOnly: true,
          data: (s) => ({ email: `set-${s}@x.io`, tags: { set: ['x'] } }),
        },
        {
          name: 'explicit createdAt and updatedAt',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({
            email: `dates-${s}@x.io`,
            createdAt: new Date('2001-02-03T04:05:06.789Z'),
            updatedAt: '2002-03-04T05:06:07.891Z',
          }),
        },
        {
          name: 'Decimal instance, number and rounding',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({ email: `dec-${s}@x.io`, balance: new Prisma.Decimal('0.005'), score: 3 }),
        },
        {
          name: 'Json null as JsonNull',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({ email: `jn-${s}@x.io`, profile: Prisma.JsonNull }),
        },
        {
          name: 'Json null as DbNull',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({ email: `dn-${s}@x.io`, profile: Prisma.DbNull }),
        },
        {
          name: 'Json scalar and array values',
          model: 'Account',
          delegate: 'account',
          pk: ['id'],
          data: (s) => ({ email: `js-${s}@x.io`, profile: [1, { a: 'b' }] }),
        },
        {
          name: 'client-generated ids (uuid, cuid, nanoid, ulid) and a relation scalar',
          model: 'Post',
          delegate: 'post',
          pk: ['id'],
          data: (s) => ({ title: `p-${s}`, authorId: account.id }),
        },
        {
          name: 'explicit id, @db.Date and @db.Timestamptz/Timestamp',
          model: 'Post',
          delegate: 'post',
          pk: ['id'],
          data: (s) => ({
            id: s === 'created' ? '00000000-0000-4000-8000-00000000000c' : '00000000-0000-4000-8000-00000000000f',
            title: `d-${s}`,
            authorId: account.id,
            day: new Date('2024-02-29T23:59:59.999Z'),
            publishedAt: new Date('2024-06-01T12:34:56.789Z'),
            views: 7,
          }),
        },
        { name: 'dbgenerated default', model: 'Tag', delegate: 'tag', pk: ['name'], data: (s) => ({ name: `tag-${s}` }) },
        { name: 'no columns at all', model: 'Counter', delegate: 'counter', pk: ['id'], data: () => ({}) },
        {
          name: 'composite primary key and now()',
          model: 'Membership',
          delegate: 'membership',
          pk: ['accountId', 'groupId'],
          data: (s) => ({ accountId: account.id, groupId: s === 'created' ? 1 : 2 }),
        },
      ];

      for (const [c, via] of cases.flatMap(
        (c) =>
          [
            [c, 'prismaTestDb'],
            [c, 'app client, adapter settings'],
            [c, 'app client, adapter pool'],
          ] as const,
      )) {
        it.skipIf(c.pgOnly && !pg)(`${c.name} (${c.model}), ${via}`, async () => {
          const started = Date.now();
          const created: Row = await prisma[c.delegate].create({ data: c.data('created') });
          const client = via === 'prismaTestDb' ? prisma : apps[via];
          const [fast] = (await fastInsert(client[c.delegate], [c.data('fastins')])) as Row[];
          // Same record as create() returns...
          expect(Object.keys(fast!)).toEqual(Object.keys(created));
          const pkGroupId = (r: Row) => (c.model === 'Membership' ? { ...r, groupId: '<g>' } : r);
          expect(pkGroupId(normalize(c.model, fast!, 'fastins', started))).toEqual(
            pkGroupId(normalize(c.model, created, 'created', started)),
          );
          // ...and the same row in the database, read back through Prisma.
          const where = (r: Row) =>
            c.pk.length === 1 ? { [c.pk[0]!]: r[c.pk[0]!] } : { [c.pk.join('_')]: Object.fromEntries(c.pk.map((k) => [k, r[k]])) };
          const readCreated = await prisma[c.delegate].findUniqueOrThrow({ where: where(created) });
          const readFast = await prisma[c.delegate].findUniqueOrThrow({ where: where(fast!) });
          expect(pkGroupId(normalize(c.model, readFast, 'fastins', started))).toEqual(
            pkGroupId(normalize(c.model, readCreated, 'created', started)),
          );
          // And the same columns, read raw (no Prisma mapping of enums, lists or types in between).
          const table = { Account: 'accounts', Post: 'Post', Tag: 'Tag', Counter: 'Counter', Membership: 'memberships' }[c.model]!;
          const cols = { id: 'id', name: 'name', accountId: 'account_id', groupId: 'group_id' } as Record<string, string>;
          const q = (n: string) => (pg ? `"${n}"` : `\`${n}\``);
          const rawSql = `SELECT * FROM ${q(table)} WHERE ${c.pk.map((k, i) => `${q(cols[k]!)} = ${pg ? `$${i + 1}` : '?'}`).join(' AND ')}`;
          const raw = async (r: Row) => ((await prisma.$queryRawUnsafe(rawSql, ...c.pk.map((k) => r[k]))) as Row[])[0]!;
          const rawNorm = (r: Row, sfx: string) => {
            const n = normalize(c.model, r, sfx, started);
            for (const k of ['id', 'slug', 'ref', 'ref7', 'sort_key', 'cuid2', 'short', 'created_at', 'updated_at', 'since', 'group_id'])
              if (k in n) n[k] = typeof r[k];
            return n;
          };
          expect(rawNorm(await raw(fast!), 'fastins')).toEqual(rawNorm(await raw(created), 'created'));
          // What fastInsert returned is what the database holds.
          expect(normalize(c.model, fast!, 'fastins', started)).toEqual(normalize(c.model, readFast, 'fastins', started));
          // The same case runs again through the next client, with the same unique values.
          await prisma[c.delegate].delete({ where: where(created) });
          await prisma[c.delegate].delete({ where: where(fast!) });
        });
      }

      it('now() and @updatedAt share one timestamp per call, like one create()', async () => {
        const [r] = (await fastInsert(prisma.account, [{ email: 'same-now@x.io' }])) as Row[];
        expect((r!.createdAt as Date).getTime()).toBe((r!.updatedAt as Date).getTime());
      });

      it('arrays: 2,500 rows in batches, returned in input order, mixed column sets', async () => {
        const rows = Array.from({ length: 2500 }, (_, i) =>
          i % 7 === 0 ? { email: `bulk-${i}@x.io`, name: `n${i}`, role: 'ADMIN' } : { email: `bulk-${i}@x.io` },
        );
        const out = (await fastInsert(prisma.account, rows)) as Row[];
        expect(out.map((r) => r.email)).toEqual(rows.map((r) => r.email));
        expect(out.filter((r) => r.role === 'ADMIN')).toHaveLength(rows.filter((r) => 'role' in r).length);
        expect(new Set(out.map((r) => r.id)).size).toBe(2500);
        expect(await prisma.account.count({ where: { email: { startsWith: 'bulk-' } } })).toBe(2500);
        // ids match the rows they belong to
        const sample = await prisma.account.findUniqueOrThrow({ where: { id: out[1234]!.id } });
        expect(sample.email).toBe('bulk-1234@x.io');
      });

      it('returning: false inserts the same rows and resolves to nothing', async () => {
        const rows = Array.from({ length: 30 }, (_, i) => ({ email: `nr-${i}@x.io`, role: 'ADMIN' }));
        expect(await fastInsert(prisma.account, rows, { returning: false })).toBeUndefined();
        const back = await prisma.account.findMany({ where: { email: { startsWith: 'nr-' } }, orderBy: { id: 'asc' } });
        expect(back.map((r: Row) => r.email)).toEqual(rows.map((r) => r.email));
        expect(back.every((r: Row) => r.role === 'ADMIN' && r.createdAt instanceof Date)).toBe(true);
      });

      it('a database error in a later batch leaves none of the rows (one transaction)', async () => {
        const before = await prisma.account.count();
        const rows = Array.from({ length: 1500 }, (_, i) => ({ email: `tx-${i === 1400 ? 10 : i}@x.io` }));
        const err = await fastInsert(prisma.account, rows).catch((e: unknown) => e);
        expect(isFastTestDbError(err)).toBe(true);
        expect(await prisma.account.count()).toBe(before);
        // the pool is still usable afterwards
        expect(await fastInsert(prisma.account, [{ email: 'tx-after@x.io' }])).toHaveLength(1);
      });

      it('sends single-row calls started together as one statement, each settling as if alone', async () => {
        // The app's client on a pool we can watch: the INSERTs that reach it.
        const inserts = countInserts(appPool!.pool as object, pg ? 'query' : 'execute');
        const app = apps['app client, adapter pool'];
        try {
          const rows = Array.from({ length: 256 }, (_, i) => ({ email: `co-${i}@x.io` }));
          const outs = (await Promise.all(rows.map((r) => fastInsert(app.account, r)))) as Row[];
          // PostgreSQL only: MySQL and MariaDB always get one statement per call.
          expect(inserts.count).toBe(pg ? 1 : rows.length);
          const back = await prisma.account.findMany({ where: { email: { startsWith: 'co-' } }, orderBy: { id: 'asc' } });
          // Each call has its own record; one statement also keeps call order.
          expect(outs.map((r) => r.email)).toEqual(rows.map((r) => r.email));
          const emailOf = new Map(back.map((r: Row) => [r.id, r.email]));
          expect(outs.map((r) => emailOf.get(r.id))).toEqual(rows.map((r) => r.email));
          if (pg) expect(back.map((r: Row) => r.email)).toEqual(rows.map((r) => r.email));

          // A duplicate email fails the batch, which goes again row by row: only that call fails.
          inserts.reset();
          const mixed = [{ email: 'cm-1@x.io' }, { email: 'co-0@x.io' }, { email: 'cm-3@x.io' }, { email: 'cm-4@x.io' }];
          const settled = await Promise.allSettled(mixed.map((r) => fastInsert(app.account, r)));
          expect(settled.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
          expect(isFastTestDbError((settled[1] as PromiseRejectedResult).reason)).toBe(true);
          expect(inserts.count).toBe(pg ? 1 + mixed.length : mixed.length);
          expect(await prisma.account.count({ where: { email: { startsWith: 'cm-' } } })).toBe(3);

          inserts.reset();
          await Promise.all([1, 2, 3].map((i) => fastInsert(app.account, { email: `cs-${i}@x.io` }, { coalesce: false })));
          expect(inserts.count).toBe(3);
        } finally {
          inserts.restore();
        }
      });

      it('a single object gives its one record, not an array', async () => {
        const out = (await fastInsert(prisma.tag, { name: 'single' })) as Row;
        expect(out).toEqual({ name: 'single', color: 'red' });
      });

      it('refuses what it cannot write like create(), and writes nothing', async () => {
        const before = await prisma.account.count();
        const bad: Array<[string, Row]> = [
          ['nested relation write', { email: 'n@x.io', posts: { create: [{ title: 'x' }] } }],
          ['unknown field', { email: 'u@x.io', nope: 1 }],
          ['unknown enum value', { email: 'e@x.io', role: 'OWNER' }],
          ['enum given by its database name', { email: 'e2@x.io', role: 'admin' }],
          ['bare null for Json', { email: 'j@x.io', profile: null }],
          ['null for a required field', { email: null }],
          ['missing required field', { name: 'x' }],
          ['wrong type', { email: 'w@x.io', score: '1.5' }],
          ['invalid date', { email: 'd@x.io', createdAt: 'yesterday' }],
        ];
        for (const [what, row] of bad) {
          const err = await fastInsert(prisma.account, [{ email: `ok-${what}@x.io` }, row]).catch((e: unknown) => e);
          expect(isFastTestDbError(err, 'UNSUPPORTED'), `${what}: ${String(err)}`).toBe(true);
        }
        expect(await prisma.account.count()).toBe(before);
      });

      it("arrays through the app's own clients: batches in one transaction, input order", async () => {
        for (const [via, app] of Object.entries(apps)) {
          const rows = Array.from({ length: 1500 }, (_, i) => ({ email: `app-${via.length}-${i}@x.io` }));
          const out = (await fastInsert(app.account, rows)) as Row[];
          expect(
            out.map((r) => r.email),
            via,
          ).toEqual(rows.map((r) => r.email));
          const bad = [{ email: `app-bad-${via.length}@x.io` }, ...rows.slice(0, 1)];
          expect(
            isFastTestDbError(await fastInsert(app.account, Array.from({ length: 1100 }, () => bad).flat()).catch((e: unknown) => e)),
            via,
          ).toBe(true);
          expect(await prisma.account.count({ where: { email: { startsWith: `app-bad-${via.length}` } } }), via).toBe(0);
        }
      });

      it.runIf(pg)('a pool fastInsert opened for an app client closes once idle', async () => {
        const app = apps['app client, adapter settings'];
        const sessions = async () =>
          Number(
            (
              (await prisma.$queryRawUnsafe('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()')) as Row[]
            )[0]!.n,
          );
        await app.$disconnect();
        await new Promise((r) => setTimeout(r, 1500));
        const before = await sessions();
        await fastInsert(app.tag, [{ name: 'idle-1' }]);
        expect(await sessions()).toBeGreaterThan(before);
        await app.$disconnect();
        await new Promise((r) => setTimeout(r, 1500));
        expect(await sessions()).toBe(before);
      });

      it('refuses, with the reason, delegates it cannot write through exactly', async () => {
        const refused = async (delegate: unknown, code: string, text: RegExp) => {
          const err = await fastInsert(delegate as never, [{ name: 'never' }] as never).catch((e: unknown) => e);
          expect(isFastTestDbError(err, code as never), String(err)).toBe(true);
          expect((err as Error).message).toMatch(text);
        };
        // Inside $transaction: fastInsert would write outside it.
        await prisma.$transaction(async (tx: any) => refused(tx.tag, 'UNSUPPORTED', /\$transaction/));
        await apps['app client, adapter pool'].$transaction(async (tx: any) => refused(tx.tag, 'UNSUPPORTED', /\$transaction/));
        // $extends(): its query extensions would not run.
        await refused(prisma.$extends({}).tag, 'UNSUPPORTED', /\$extends/);
        // A driver adapter other than adapter-pg / adapter-mariadb: refused before it is ever connected.
        const { PrismaClient } = await loadClient(engine);
        const other = new PrismaClient({
          adapter: {
            provider: pg ? 'postgres' : 'mysql',
            adapterName: '@prisma/adapter-neon',
            connect: () => Promise.reject(new Error('not used')),
          } as never,
        });
        await refused(other.tag, 'UNSUPPORTED', /@prisma\/adapter-neon/);
        // Not a delegate at all, or a client instead of one of its delegates.
        await refused(prisma, 'BAD_OPTION', /not the client/);
        await refused(apps['app client, adapter pool'], 'BAD_OPTION', /not a Prisma model delegate/);
        await refused({}, 'BAD_OPTION', /not a Prisma model delegate/);
        expect(await prisma.tag.count({ where: { name: 'never' } })).toBe(0);
      });

      it('reset() through the core empties what fastInsert wrote', async () => {
        await fastInsert(prisma.tag, [{ name: 'to-reset' }]);
        const report = await t.database.reset();
        expect(report.emptied.length).toBeGreaterThan(0);
        expect(await prisma.tag.count()).toBe(0);
        // the migrations table is part of the schema, not test data
        const rows = await prisma.$queryRawUnsafe('SELECT migration_name FROM _prisma_migrations');
        expect(rows).toHaveLength(1);
      });
    });
  }
}
