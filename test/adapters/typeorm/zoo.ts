/**
 * Entity shapes covering every feature fastInsert claims, built per engine (column types differ)
 * inside a function so that each test file gets its own classes. Types are spelled out because
 * vitest's transform does not emit decorator metadata.
 */
import 'reflect-metadata';
import {
  BeforeInsert,
  ChildEntity,
  Column,
  CreateDateColumn,
  DefaultNamingStrategy,
  DeleteDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  OneToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  TableInheritance,
  UpdateDateColumn,
  VersionColumn,
  type ObjectLiteral,
} from 'typeorm';

export type ZooEngine = 'postgres' | 'mysql';

/** snake_case columns, so that every shape also proves the naming strategy is honoured. */
export class SnakeNamingStrategy extends DefaultNamingStrategy {
  override columnName(propertyName: string, customName: string | undefined, prefixes: string[]): string {
    const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
    return customName ?? snake([...prefixes, propertyName].filter(Boolean).join('_'));
  }
  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return `${relationName}_${referencedColumnName}`.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  }
}

export interface Shape {
  name: string;
  entity: new () => ObjectLiteral;
  /** Fresh rows each call (insert() and fastInsert mutate what they are given). */
  rows: () => ObjectLiteral[];
  /** Database columns whose values differ between two correct inserts (server clock, random uuids). */
  loose: string[];
  /** Shapes whose rows reference rows of these shapes (inserted first). */
  after?: string[];
}

export enum Color {
  Red = 'red',
  Green = 'green',
  Blue = 'blue',
}

export function buildZoo(engine: ZooEngine) {
  const pg = engine === 'postgres';
  const ts = pg ? 'timestamptz' : 'datetime';
  const double = pg ? 'double precision' : 'double';
  const blob = pg ? 'bytea' : 'blob';

  @Entity('zoo_scalar')
  class Scalar {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 100 }) title!: string;
    @Column({ type: 'int' }) someCount!: number;
    @Column({ type: double }) ratio!: number;
    @Column({ type: 'boolean' }) isActive!: boolean;
    @Column({ type: 'text', nullable: true }) note!: string | null;
    @Column({ type: 'varchar', length: 20, name: 'CustomNamed' }) renamed!: string;
    @Column({ type: 'int', default: 7 }) withDefault!: number;
    @Column({ type: 'varchar', length: 20, default: 'dflt' }) textDefault!: string;
    @Column({ type: 'decimal', precision: 12, scale: 3 }) amount!: string;
    @Column({ type: 'bigint' }) big!: string;
    @Column({ type: 'date' }) day!: string;
    @Column({ type: 'time', nullable: true }) clock!: string | null;
    @Column({ type: ts, precision: 3 }) happenedAt!: Date;
    @Column({ type: blob, nullable: true }) bytes!: Buffer | null;
  }

  class Geo {
    @Column({ type: double, nullable: true }) lat!: number | null;
    @Column({ type: double, nullable: true }) lng!: number | null;
  }
  class Address {
    @Column({ type: 'varchar', length: 80 }) street!: string;
    @Column({ type: 'varchar', length: 80, nullable: true }) city!: string | null;
    @Column(() => Geo) geo!: Geo;
  }
  @Entity('zoo_embedded')
  class Embedded {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column(() => Address) home!: Address;
    @Column(() => Address, { prefix: 'w' }) work!: Address;
  }

  @Entity('zoo_author')
  class Author {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 60 }) name!: string;
  }
  @Entity('zoo_profile')
  class Profile {
    @PrimaryColumn({ type: 'varchar', length: 20 }) code!: string;
    @Column({ type: 'varchar', length: 60 }) bio!: string;
  }
  @Entity('zoo_post')
  class Post {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 60 }) title!: string;
    @ManyToOne(() => Author, { nullable: true }) author!: Author | number | null;
    @ManyToOne(() => Author, { nullable: true }) @JoinColumn({ name: 'editor_ref' }) editor!: Author | null;
    @OneToOne(() => Profile, { nullable: true }) @JoinColumn() profile!: Profile | null;
  }

  /** The common pattern of an explicit foreign-key column next to its relation, sharing one database column. */
  @Entity('zoo_comment')
  class Comment {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 40 }) body!: string;
    @Column({ type: 'int', nullable: true }) authorId!: number | null;
    @ManyToOne(() => Author, { nullable: true }) @JoinColumn({ name: 'author_id' }) author!: Author | null;
    @Column({ type: 'int' }) postId!: number;
    @ManyToOne(() => Post) @JoinColumn({ name: 'post_id' }) post!: Post;
  }

  @Entity('zoo_dates')
  class Dates {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 20 }) label!: string;
    @CreateDateColumn({ type: ts, precision: 3 }) createdAt!: Date;
    @UpdateDateColumn({ type: ts, precision: 3 }) updatedAt!: Date;
    @DeleteDateColumn({ type: ts, precision: 3, nullable: true }) deletedAt!: Date | null;
    @VersionColumn({ type: 'int' }) version!: number;
  }

  @Entity('zoo_uuid')
  class Uuid {
    @PrimaryGeneratedColumn('uuid') id!: string;
    @Column({ type: 'varchar', length: 20 }) label!: string;
  }

  @Entity('zoo_uuid_given')
  class UuidGiven {
    @PrimaryGeneratedColumn('uuid') id!: string;
    @Column({ type: 'varchar', length: 20 }) label!: string;
  }

  @Entity('zoo_composite')
  class Composite {
    @PrimaryColumn({ type: 'varchar', length: 10 }) tenant!: string;
    @PrimaryColumn({ type: 'int' }) num!: number;
    @Column({ type: 'varchar', length: 20 }) label!: string;
  }

  const cents = { to: (v?: number | null) => (v == null ? v : Math.round(v * 100)), from: (v: number | null) => (v == null ? v : v / 100) };
  const upper = { to: (v?: string) => v?.toUpperCase(), from: (v: string) => v };
  @Entity('zoo_transform')
  class Transform {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'int', transformer: cents, nullable: true }) price!: number | null;
    @Column({ type: 'varchar', length: 20, transformer: [upper, { to: (v?: string) => v && `<${v}>`, from: (v: string) => v }] })
    code!: string;
  }

  @Entity('zoo_kinds')
  class Kinds {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'enum', enum: Color, default: Color.Green }) color!: Color;
    @Column({ type: 'simple-enum', enum: Color, nullable: true }) simpleColor!: Color | null;
    @Column({ type: 'json', nullable: true }) doc!: unknown;
    @Column({ type: 'simple-array' }) tags!: string[];
    @Column({ type: 'simple-json', nullable: true }) settings!: unknown;
  }

  @Entity('zoo_things')
  @TableInheritance({ column: { type: 'varchar', length: 20, name: 'kind' } })
  class Thing {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 20 }) label!: string;
  }
  @ChildEntity('gadget')
  class Gadget extends Thing {
    @Column({ type: 'int', nullable: true }) volts!: number | null;
  }

  @Entity('zoo_listener')
  class Listener {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'varchar', length: 40 }) label!: string;
    @Column({ type: 'varchar', length: 40, nullable: true }) slug!: string | null;
    @BeforeInsert() makeSlug() {
      this.slug = this.label.toLowerCase().replace(/\s+/g, '-');
    }
  }

  @Entity('zoo_defaults_only')
  class DefaultsOnly {
    @PrimaryGeneratedColumn({ type: 'int' }) id!: number;
    @Column({ type: 'int', default: 3 }) n!: number;
  }

  const entities: Array<new () => ObjectLiteral> = [
    Scalar,
    Embedded,
    Author,
    Profile,
    Post,
    Comment,
    Dates,
    Uuid,
    UuidGiven,
    Composite,
    Transform,
    Kinds,
    Thing,
    Gadget,
    Listener,
    DefaultsOnly,
  ];
  const day = new Date(Date.UTC(2024, 1, 29, 13, 14, 15, 678));
  const shapes: Shape[] = [
    {
      name: 'scalar',
      entity: Scalar,
      loose: [],
      rows: () => [
        Object.assign(new Scalar(), {
          title: 'a',
          someCount: 1,
          ratio: 0.5,
          isActive: true,
          note: null,
          renamed: 'r1',
          amount: '12.345',
          big: '9007199254740993',
          day: '2024-02-29',
          clock: '12:34:56',
          happenedAt: day,
          bytes: Buffer.from([0, 1, 255]),
        }),
        {
          title: 'it\'s "quoted" \\ back',
          someCount: -5,
          ratio: 1e-9,
          isActive: false,
          renamed: 'r2',
          withDefault: 99,
          textDefault: 'given',
          amount: '0.001',
          big: '-1',
          day: '1999-12-31',
          happenedAt: new Date(0),
        },
        {
          title: 'ünïcødé ✓',
          someCount: 0,
          ratio: -3.25,
          isActive: true,
          note: 'n',
          renamed: 'r3',
          amount: '1',
          big: '0',
          day: '2000-01-01',
          clock: null,
          happenedAt: day,
          bytes: null,
        },
      ],
    },
    {
      name: 'embedded',
      entity: Embedded,
      loose: [],
      rows: () => [
        {
          home: { street: 'Main 1', city: 'X', geo: { lat: 1.5, lng: -2.5 } },
          work: { street: 'Office 2', city: null, geo: { lat: null, lng: 3 } },
        },
        { home: { street: 'Only street', geo: {} }, work: { street: 'W' } },
      ],
    },
    { name: 'author', entity: Author, loose: [], rows: () => [{ name: 'ann' }, { name: 'bob' }, { name: 'cy' }] },
    {
      name: 'profile',
      entity: Profile,
      loose: [],
      rows: () => [
        { code: 'p1', bio: 'one' },
        { code: 'p2', bio: 'two' },
      ],
    },
    {
      name: 'post',
      entity: Post,
      loose: [],
      after: ['author', 'profile'],
      rows: () => [
        {
          title: 'object relation',
          author: Object.assign(new Author(), { id: 1, name: 'ann' }),
          editor: { id: 2 },
          profile: { code: 'p1' },
        },
        { title: 'id relation', author: 2, editor: null, profile: null },
        { title: 'no relation' },
      ],
    },
    {
      name: 'comment',
      entity: Comment,
      loose: [],
      after: ['post'],
      rows: () => [
        { body: 'by column', authorId: 1, postId: 1 },
        { body: 'by relation', author: { id: 2 }, post: { id: 2 } },
        { body: 'mixed', authorId: null, post: Object.assign(new Post(), { id: 3, title: 'no relation' }) },
      ],
    },
    {
      name: 'dates',
      entity: Dates,
      loose: ['created_at', 'updated_at'],
      rows: () => [{ label: 'd1' }, { label: 'd2', deletedAt: day }, { label: 'd3', version: 5, createdAt: day }],
    },
    { name: 'uuid', entity: Uuid, loose: ['id'], rows: () => [{ label: 'u1' }, { label: 'u2' }] },
    {
      name: 'uuid-given',
      entity: UuidGiven,
      loose: [],
      rows: () => [
        { id: '3f1c2a9e-8d4b-4c1e-9a7f-0b6e5d4c3b2a', label: 'u3' },
        { id: '00000000-0000-4000-8000-000000000001', label: 'u4' },
      ],
    },
    {
      name: 'composite',
      entity: Composite,
      loose: [],
      rows: () => [
        { tenant: 't', num: 1, label: 'c1' },
        { tenant: 't', num: 2, label: 'c2' },
        { tenant: 'u', num: 1, label: 'c3' },
      ],
    },
    {
      name: 'transform',
      entity: Transform,
      loose: [],
      rows: () => [{ price: 12.34, code: 'ab' }, { price: null, code: 'x' }, { code: 'noprice' }],
    },
    {
      name: 'kinds',
      entity: Kinds,
      loose: [],
      rows: () => [
        {
          color: Color.Red,
          simpleColor: Color.Blue,
          doc: { a: [1, 2, { b: null }], s: 'x"y' },
          tags: ['one', 'two'],
          settings: { dark: true },
        },
        { tags: [], doc: null },
        { color: Color.Blue, doc: [1, 'two'], tags: ['solo'], settings: [1, 2] },
      ],
    },
    { name: 'sti', entity: Gadget, loose: [], rows: () => [Object.assign(new Gadget(), { label: 'g1', volts: 5 }), { label: 'g2' }] },
    {
      name: 'listener',
      entity: Listener,
      loose: [],
      rows: () => [Object.assign(new Listener(), { label: 'Hello World' }), Object.assign(new Listener(), { label: 'Two Words' })],
    },
    { name: 'defaults-only', entity: DefaultsOnly, loose: [], rows: () => [{}, {}, { n: 9 }] },
  ];

  if (pg) {
    @Entity('zoo_pg_arrays')
    class PgArrays {
      @PrimaryGeneratedColumn('identity', { type: 'int', generatedIdentity: 'ALWAYS' }) id!: number;
      @Column({ type: 'int', array: true }) nums!: number[];
      @Column({ type: 'text', array: true, nullable: true }) words!: string[] | null;
      @Column({ type: 'enum', enum: Color, array: true, default: [] }) colors!: Color[];
      @Column({ type: 'jsonb', nullable: true }) meta!: unknown;
    }
    @Entity('zoo_pg_identity')
    class PgIdentity {
      @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' }) id!: string;
      @Column({ type: 'varchar', length: 20 }) label!: string;
    }
    entities.push(PgArrays, PgIdentity);
    shapes.push(
      {
        name: 'pg-arrays',
        entity: PgArrays,
        loose: [],
        rows: () => [
          { nums: [1, 2, 3], words: ['a b', 'c,"d"', ''], colors: [Color.Red, Color.Blue], meta: { deep: { x: 1 } } },
          { nums: [], words: null, meta: [1, { y: 'z' }] },
        ],
      },
      { name: 'pg-identity', entity: PgIdentity, loose: [], rows: () => [{ label: 'i1' }, { label: 'i2' }] },
    );
  }
  return { entities, shapes, Scalar, Author, Post, Uuid, Dates, Listener, Embedded, Profile };
}

/** The zoo's entities and the DataSource options both zoo suites open them with, on `engine`. */
export function zooOptions(engine: ZooEngine) {
  const zoo = buildZoo(engine);
  const options = {
    type: engine === 'postgres' ? 'postgres' : 'mariadb',
    entities: zoo.entities,
    namingStrategy: new SnakeNamingStrategy(),
  } as const;
  return { zoo, options };
}
