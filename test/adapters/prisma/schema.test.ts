/** The schema reader, its merge with a client's runtime data model, and the id generators: no database needed. */
import { describe, expect, it } from 'vitest';
import { cuid1, cuid2, nanoid, ulid, uuid4, uuid7 } from '../../../adapters/prisma/generators.js';
import { mergeSchema, type RuntimeDataModel } from '../../../adapters/prisma/runtime-model.js';
import { parsePrismaSchema } from '../../../adapters/prisma/schema.js';

const SCHEMA = `
datasource db {
  provider = "postgresql" // comment
}

/// documented model
model A {
  id    Int    @id @default(autoincrement()) // trailing "quoted // not a string"
  s     String @default("a \\"b\\" // c") @db.VarChar(20)
  j     Json   @default("{\\"k\\": [1, 2]}")
  l     Int[]  @default([1, 2])
  e     Kind   @default(SECOND) @map("e_col")
  at    DateTime @updatedAt @db.Timestamptz(6)
  ig    String @ignore
  u     Unsupported("circle")?
  bs    B[]

  @@map("aa")
  @@index([s(ops: raw("gin_trgm_ops"))], type: Gin)
}

model B {
  a   Int
  b   Int
  aId Int
  rel A @relation(fields: [aId], references: [id],
                  onDelete: Cascade)

  @@id([a, b], map: "pk")
  @@schema("other")
}

enum Kind {
  FIRST
  SECOND @map("second")

  @@map("kinds")
}
`;

describe('Prisma schema reader', () => {
  const s = parsePrismaSchema(SCHEMA);
  const a = s.models.get('A')!;
  const field = (n: string) => a.fields.get(n)!;

  it('reads provider, single and composite ids, and @@schema', () => {
    expect(s.provider).toBe('postgresql');
    expect(a.primaryKey).toEqual(['id']);
    expect(s.models.get('B')).toMatchObject({ primaryKey: ['a', 'b'], schema: 'other' });
  });

  it('reads defaults with strings, escapes, lists, enum values and functions', () => {
    expect(field('id').default).toEqual({ kind: 'fn', name: 'autoincrement', args: [] });
    expect(field('s').default).toEqual({ kind: 'value', value: 'a "b" // c' });
    expect(field('s').nativeType).toBe('VarChar(20)');
    expect(field('j').default).toEqual({ kind: 'value', value: '{"k": [1, 2]}' });
    expect(field('l')).toMatchObject({ list: true, default: { kind: 'value', value: [1, 2] } });
    expect(field('e')).toMatchObject({ default: { kind: 'value', value: { ident: 'SECOND' } } });
    expect(field('at')).toMatchObject({ updatedAt: true, nativeType: 'Timestamptz(6)' });
    expect(field('u')).toMatchObject({ optional: true, list: false });
  });

  it('reads enum value @map', () => {
    expect([...s.enums.get('Kind')!.values]).toEqual([
      ['FIRST', 'FIRST'],
      ['SECOND', 'second'],
    ]);
  });
});

describe('the schema fastInsert plans from', () => {
  // What a generated client carries for A and B: @ignore and Unsupported fields are not in it.
  const runtime: RuntimeDataModel = {
    models: {
      A: {
        dbName: 'aa',
        schema: null,
        fields: [
          { name: 'id', kind: 'scalar', type: 'Int' },
          { name: 'e', kind: 'enum', type: 'Kind', dbName: 'e_col' },
          { name: 'bs', kind: 'object', type: 'B', relationName: 'AToB' },
        ],
      },
      B: {
        dbName: null,
        schema: 'other',
        fields: [
          { name: 'a', kind: 'scalar', type: 'Int' },
          { name: 'b', kind: 'scalar', type: 'Int' },
        ],
      },
    },
    enums: {},
    types: {},
  };
  const merged = mergeSchema(runtime, parsePrismaSchema(SCHEMA), 'the test schema');

  it('takes names, kinds, types, @map, @@map and @@schema from the client, attributes from the text', () => {
    const a = merged.models.get('A')!;
    expect(a).toMatchObject({ dbName: 'aa', schema: undefined, primaryKey: ['id'] });
    expect(a.fields.map((f) => [f.name, f.kind, f.dbName])).toEqual([
      ['id', 'scalar', 'id'],
      ['e', 'enum', 'e_col'],
      ['bs', 'object', 'bs'],
    ]);
    expect(a.fields[1]).toMatchObject({ type: 'Kind', default: { kind: 'value', value: { ident: 'SECOND' } } });
    expect(merged.models.get('B')).toMatchObject({ dbName: 'B', schema: 'other', primaryKey: ['a', 'b'] });
  });

  it("takes @@schema from the text when the client's runtime data model has none (Prisma 6)", () => {
    const six = { ...runtime, models: { ...runtime.models, B: { dbName: null, fields: runtime.models.B!.fields } } };
    expect(mergeSchema(six, parsePrismaSchema(SCHEMA), 'the test schema').models.get('B')!.schema).toBe('other');
  });

  it('refuses a client whose models the schema text does not have', () => {
    const other = { ...runtime, models: { ...runtime.models, Z: { dbName: null, fields: [] } } };
    expect(() => mergeSchema(other, parsePrismaSchema(SCHEMA), 'the test schema')).toThrow(/model Z .*not in the test schema/);
  });
});

describe('id generators', () => {
  const many = <T>(fn: () => T) => Array.from({ length: 2000 }, fn);
  const cases: Array<[string, () => string, RegExp]> = [
    ['uuid v4', uuid4, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/],
    ['uuid v7', uuid7, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/],
    ['cuid', cuid1, /^c[a-z0-9]{24}$/],
    ['cuid2', cuid2, /^[a-z][a-z0-9]{23}$/],
    ['nanoid', () => nanoid(), /^[A-Za-z0-9_-]{21}$/],
    ['nanoid(8)', () => nanoid(8), /^[A-Za-z0-9_-]{8}$/],
    ['ulid', ulid, /^[0-9A-HJKMNP-TV-Z]{26}$/],
  ];
  for (const [name, fn, re] of cases) {
    it(`${name}: format and no repeats`, () => {
      const ids = many(fn);
      for (const id of ids) expect(id).toMatch(re);
      expect(new Set(ids).size).toBe(ids.length);
    });
  }

  it('uuid v7 and ulid start with the current time', () => {
    const ms = Date.now();
    expect(Math.abs(parseInt(uuid7().replace(/-/g, '').slice(0, 12), 16) - ms)).toBeLessThan(5000);
    const t = [...ulid().slice(0, 10)].reduce((acc, ch) => acc * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(ch), 0);
    expect(Math.abs(t - ms)).toBeLessThan(5000);
  });
});
