/**
 * PostgreSQL tables that exercise every path of fastInsert: defaults of each kind, client-side
 * $defaultFn/$onUpdate, mapped types (dates, json, arrays, bigint, numeric, custom types),
 * casing, generated and identity columns, a non-public schema, and an all-defaults table.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  date,
  doublePrecision,
  integer,
  interval,
  json,
  jsonb,
  numeric,
  pgEnum,
  pgSchema,
  pgTable,
  point,
  primaryKey,
  real,
  serial,
  smallint,
  text,
  time,
  timestamp,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core';

/** Deterministic client-side defaults, so two inserts of the same rows compare equal. */
export const counters = { code: 0, touched: 0 };
export function resetCounters(): void {
  counters.code = 0;
  counters.touched = 0;
}

export const mood = pgEnum('mood', ['sad', 'ok', 'happy']);

/** Stored as text "a|b|c", seen as a string array: exercises toDriver/fromDriver. */
const pipeList = customType<{ data: string[]; driverData: string }>({
  dataType: () => 'text',
  toDriver: (v) => v.join('|'),
  fromDriver: (v) => (v === '' ? [] : v.split('|')),
});

export const people = pgTable('people', {
  id: serial('id').primaryKey(),
  fullName: text('full_name').notNull(),
  nickname: varchar('nickname', { length: 40 }),
  age: integer('age').default(18),
  score: smallint('score').notNull().default(0),
  active: boolean('active').notNull().default(true),
  mood: mood('mood').default('ok'),
  born: date('born'),
  bornDate: date('born_date', { mode: 'date' }),
  wakeUp: time('wake_up'),
  createdAt: timestamp('created_at', { mode: 'date' }).notNull().defaultNow(),
  seenAt: timestamp('seen_at', { mode: 'date', withTimezone: true }),
  seenText: timestamp('seen_text', { mode: 'string' }),
  balance: numeric('balance', { precision: 12, scale: 2 }),
  ratio: real('ratio'),
  weight: doublePrecision('weight'),
  big: bigint('big', { mode: 'bigint' }),
  bigNum: bigint('big_num', { mode: 'number' }),
  tags: text('tags').array(),
  meta: jsonb('meta').$type<Record<string, unknown>>(),
  raw: json('raw'),
  stay: interval('stay'),
  spot: point('spot', { mode: 'xy' }),
  token: uuid('token').defaultRandom(),
  code: text('code').$defaultFn(() => `C${++counters.code}`),
  touched: integer('touched').$onUpdate(() => ++counters.touched),
  pipes: pipeList('pipes'),
  fromSql: text('from_sql').$defaultFn(() => sql`'from-sql'`),
  stampedAt: timestamp('stamped_at', { mode: 'date' }).$onUpdate(() => sql`now()`),
  nameLength: integer('name_length').generatedAlwaysAs(sql`length(full_name)`),
});

export const ident = pgTable('ident', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  label: text('label').default('none'),
});

export const bare = pgTable('bare', { id: serial('id').primaryKey() });

export const pairs = pgTable(
  'pairs',
  {
    left: integer('left').notNull(),
    right: integer('right').notNull(),
    note: text('note'),
  },
  (t) => [primaryKey({ columns: [t.left, t.right] })],
);

export const shop = pgSchema('shop');
export const items = shop.table('items', {
  sku: text('sku').primaryKey(),
  priceCents: integer('price_cents').notNull(),
  addedAt: timestamp('added_at', { mode: 'string' }).default(sql`'2020-01-02 03:04:05'`),
});

/** Property keys differ from column names only through the `casing` option. */
export const cased = pgTable('cased', {
  id: serial().primaryKey(),
  firstName: text().notNull(),
  lastSeenAt: timestamp({ mode: 'date' }),
});
