/**
 * MySQL/MariaDB tables for the fastInsert equivalence zoo: AUTO_INCREMENT and $defaultFn keys
 * (what $returningId reports), defaults of each kind, mapped types and casing.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  date,
  datetime,
  decimal,
  double,
  int,
  json,
  mysqlEnum,
  mysqlTable,
  primaryKey,
  smallint,
  text,
  time,
  timestamp,
  varbinary,
  varchar,
} from 'drizzle-orm/mysql-core';

export const counters = { code: 0, touched: 0, uid: 0 };
export function resetCounters(): void {
  counters.code = 0;
  counters.touched = 0;
  counters.uid = 0;
}

const pipeList = customType<{ data: string[]; driverData: string }>({
  dataType: () => 'varchar(200)',
  toDriver: (v) => v.join('|'),
  fromDriver: (v) => (v === '' ? [] : v.split('|')),
});

export const people = mysqlTable('people', {
  id: int('id').primaryKey().autoincrement(),
  fullName: varchar('full_name', { length: 100 }).notNull(),
  age: int('age').default(18),
  score: smallint('score').notNull().default(0),
  active: boolean('active').notNull().default(true),
  mood: mysqlEnum('mood', ['sad', 'ok', 'happy']).default('ok'),
  born: date('born', { mode: 'string' }),
  bornDate: date('born_date', { mode: 'date' }),
  wakeUp: time('wake_up'),
  createdAt: timestamp('created_at', { mode: 'date' }).notNull().defaultNow(),
  seenAt: datetime('seen_at', { mode: 'date', fsp: 3 }),
  seenText: datetime('seen_text', { mode: 'string' }),
  balance: decimal('balance', { precision: 12, scale: 2 }),
  weight: double('weight'),
  big: bigint('big', { mode: 'bigint' }),
  bigNum: bigint('big_num', { mode: 'number' }),
  meta: json('meta').$type<Record<string, unknown>>(),
  note: text('note'),
  blob: varbinary('blob', { length: 16 }),
  code: varchar('code', { length: 20 }).$defaultFn(() => `C${++counters.code}`),
  touched: int('touched').$onUpdate(() => ++counters.touched),
  pipes: pipeList('pipes'),
  fromSql: varchar('from_sql', { length: 20 }).$defaultFn(() => sql`'from-sql'`),
  stampedAt: timestamp('stamped_at', { mode: 'date' }).$onUpdate(() => sql`now()`),
  nameLength: int('name_length').generatedAlwaysAs(sql`char_length(full_name)`),
});

/** Key from $defaultFn: $returningId reports the generated value. */
export const tokens = mysqlTable('tokens', {
  id: varchar('id', { length: 36 })
    .primaryKey()
    .$defaultFn(() => `uid-${++counters.uid}`),
  label: varchar('label', { length: 50 }).default('none'),
});

// Not serial(): drizzle-kit writes `serial AUTO_INCREMENT`, which MariaDB rejects.
export const bare = mysqlTable('bare', { id: bigint('id', { mode: 'number', unsigned: true }).primaryKey().autoincrement() });

export const pairs = mysqlTable(
  'pairs',
  {
    left: int('left').notNull(),
    right: int('right').notNull(),
    note: varchar('note', { length: 50 }),
  },
  (t) => [primaryKey({ columns: [t.left, t.right] })],
);

export const cased = mysqlTable('cased', {
  id: int().primaryKey().autoincrement(),
  firstName: varchar({ length: 50 }).notNull(),
  lastSeenAt: datetime({ mode: 'date' }),
});
