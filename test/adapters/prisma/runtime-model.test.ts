/**
 * Why the adapter still reads the schema text, keeps its own id generators and reads two
 * underscore fields of the client: each test asserts something Prisma does not expose at run
 * time, and fails on the day it does (then use Prisma's instead, see runtime-model.ts).
 * Generated clients of both generators (prisma-client, prisma-client-js) of the installed
 * Prisma 7; the zoo suites pin the runtime data model of Prisma 6 too. No database needed.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientDriverAdapter, embeddedSchemaText, runtimeDataModel } from '../../../adapters/prisma/runtime-model.js';
import { ensureGenerated } from './generate.js';

const require = createRequire(import.meta.url);
const SCHEMA = 'test/adapters/prisma/runtime/schema.prisma';
const out = ensureGenerated(SCHEMA);
const generatedDir = out.replace(/runtime-client$/, '');

type Generated = { PrismaClient: new (o: { adapter: unknown }) => object; Prisma: Record<string, unknown>; Kind: Record<string, string> };
const generators: Record<string, () => Promise<Generated>> = {
  'prisma-client': async () => (await import(/* @vite-ignore */ `${generatedDir}runtime-client/client.ts`)) as Generated,
  'prisma-client-js': async () => require(`${generatedDir}runtime-js/index.js`) as Generated,
};

/** An adapter factory that is never connected: building a client needs one, these tests never query. */
const adapter = { provider: 'postgres', adapterName: '@prisma/adapter-pg', connect: () => Promise.reject(new Error('not used')) };

/** Every property name a caller can reach without an underscore, own and inherited. */
function publicValues(o: object): unknown[] {
  const names = new Set<string>();
  for (let p: object | null = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const k of Object.getOwnPropertyNames(p)) names.add(k);
  return [...names]
    .filter((k) => !k.startsWith('_'))
    .map((k) => {
      try {
        return (o as Record<string, unknown>)[k];
      } catch {
        return undefined;
      }
    });
}

/** What the runtime data model keeps per field and per model (and the adapter uses). */
const FIELD_KEYS = ['dbName', 'kind', 'name', 'relationName', 'type'];
const MODEL_KEYS = ['dbName', 'fields', 'schema'];

for (const [generator, load] of Object.entries(generators)) {
  describe(`what a ${generator} client of Prisma 7 exposes at run time`, () => {
    it('its runtime data model gives names, kinds, types, @map and @@map; not @ignore fields', async () => {
      const { PrismaClient } = await load();
      const model = runtimeDataModel(new PrismaClient({ adapter }))!.models.Item!;
      expect(model.dbName).toBe('items');
      expect(model.fields.find((f) => f.name === 'sortBy')).toEqual({ name: 'sortBy', kind: 'scalar', type: 'String', dbName: 'sort_by' });
      expect(model.fields.find((f) => f.name === 'kind')).toMatchObject({ kind: 'enum', type: 'Kind' });
      expect(model.fields.map((f) => f.name)).not.toContain('ig');
    });

    it('gap: no @default, @id, @updatedAt, optional, list or native type per field, no primary key per model', async () => {
      const { PrismaClient } = await load();
      const model = runtimeDataModel(new PrismaClient({ adapter }))!.models.Item!;
      expect(Object.keys(model).sort()).toEqual(MODEL_KEYS);
      for (const f of model.fields)
        expect(
          Object.keys(f).every((k) => FIELD_KEYS.includes(k)),
          `${f.name}: ${Object.keys(f).join(', ')}`,
        ).toBe(true);
    });

    it('gap: no enum values, and the exported enum maps names to names, not to their @map values', async () => {
      const { PrismaClient, Kind } = await load();
      expect(runtimeDataModel(new PrismaClient({ adapter }))!.enums).toEqual({});
      expect(Kind).toEqual({ A: 'A', B: 'B' });
    });

    it('gap: Prisma.dmmf, where it exists, is the same runtime data model', async () => {
      const { PrismaClient, Prisma } = await load();
      const dmmf = Prisma.dmmf as { datamodel: { models: Array<{ name: string }>; enums: unknown[] } } | undefined;
      if (generator === 'prisma-client') expect(dmmf).toBeUndefined();
      else {
        const { models } = runtimeDataModel(new PrismaClient({ adapter }))!;
        expect(dmmf!.datamodel.models).toEqual(Object.entries(models).map(([name, m]) => ({ name, ...m })));
        expect(dmmf!.datamodel.enums).toEqual([]);
      }
    });

    it('gap: the schema text and the driver adapter are reachable only through _engineConfig', async () => {
      const { PrismaClient, Prisma } = await load();
      const client = new PrismaClient({ adapter });
      const text = embeddedSchemaText(client)!;
      expect(text).toContain('@updatedAt');
      expect(clientDriverAdapter(client)).toBe(adapter);
      const holds = (v: unknown) =>
        v === text || v === adapter || (!!v && typeof v === 'object' && Object.values(v).some((x) => x === text || x === adapter));
      expect(publicValues(client).filter(holds)).toEqual([]);
      expect(Object.values(Prisma).filter(holds)).toEqual([]);
    });
  });
}

describe.each([
  ['7', 'prisma', '@prisma/client'],
  ['6', 'prisma-6', 'prisma-client-6'],
])('what Prisma %s installs', (_major, cli, client) => {
  const runtime = require(`${client}/runtime/client`) as Record<string, unknown>;

  it('gap: the client runtime exports no id generator (uuid, cuid, nanoid, ulid are internal to its query executor)', () => {
    expect(Object.keys(runtime).filter((k) => /uuid|cuid|nanoid|ulid|generator/i.test(k))).toEqual([]);
  });

  it('gap: no getDMMF: the client runtime has none, the CLI has no run-time entry, neither depends on a package that has one', async () => {
    expect(Object.keys(runtime).filter((k) => /getdmmf|schema/i.test(k))).toEqual([]);
    const cliExports = await import(/* @vite-ignore */ cli).catch(() => ({}));
    expect(Object.keys(cliExports).filter((k) => /dmmf/i.test(k))).toEqual([]);
    for (const pkg of [cli, client]) {
      const deps = Object.keys(
        (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { dependencies?: object }).dependencies ?? {},
      );
      expect(
        deps.filter((d) => /internals|get-dmmf|prisma-schema-wasm/.test(d)),
        pkg,
      ).toEqual([]);
    }
  });
});
