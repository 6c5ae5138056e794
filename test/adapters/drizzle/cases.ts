/**
 * The equivalence zoo: for each table, rows that `db.insert(table).values(rows)` and
 * fastInsert must write identically. Keys listed in `volatile` hold server-side now()/random
 * values and are compared by type instead of value.
 */
import { sql, type Table } from 'drizzle-orm';
import * as my from './zoo-mysql.js';
import * as pg from './zoo-pg.js';

export interface ZooCase {
  name: string;
  table: Table;
  rows: Array<Record<string, unknown>>;
  /** Columns whose value the server picks (defaultNow, defaultRandom) when the row leaves them out. */
  volatile: string[];
  /** Property keys to sort selected rows by. */
  orderBy: string[];
}

const quirky = `O'Brien \\ "quoted" -- ; DROP TABLE x; ünïcødé 🎉`;

export const pgCases: ZooCase[] = [
  {
    name: 'people: every type, defaults, $defaultFn, $onUpdate, custom type, generated column',
    table: pg.people,
    volatile: ['createdAt', 'token', 'stampedAt'],
    orderBy: ['id'],
    rows: [
      {
        fullName: 'Ada',
        nickname: 'ada',
        age: 36,
        score: 3,
        active: false,
        mood: 'happy',
        born: '1815-12-10',
        bornDate: new Date('1815-12-10T00:00:00Z'),
        wakeUp: '06:30:00',
        createdAt: new Date('2024-01-02T03:04:05.678Z'),
        seenAt: new Date('2024-05-06T07:08:09.123Z'),
        seenText: '2024-05-06 07:08:09.5',
        balance: '1234.50',
        ratio: 0.5,
        weight: 61.25,
        big: 9007199254740993n,
        bigNum: 42,
        tags: ['a', 'b,c', '"q"', quirky],
        meta: { nested: { x: [1, 2] }, s: quirky },
        raw: [1, 'two', null],
        stay: '1 day 02:00:00',
        spot: { x: 1.5, y: -2 },
        token: '00000000-0000-4000-8000-000000000001',
        code: 'given',
        touched: 7,
        pipes: ['x', 'y'],
      },
      { fullName: 'Bob' },
      { fullName: 'Cy', age: null, nickname: null, meta: null, mood: null },
      { fullName: quirky, tags: [], pipes: [], age: undefined, big: -1n },
      { fullName: 'Dee', nameLength: 999, notAColumn: 'ignored like db.insert does' },
      { fullName: 'Eve', createdAt: new Date('1999-12-31T23:59:59.999Z'), token: '00000000-0000-4000-8000-000000000002' },
      { fullName: sql`'from ' || 'sql'`, fromSql: 'given', stampedAt: new Date('2001-01-01T00:00:00.000Z') },
    ],
  },
  {
    name: 'ident: identity column, given and generated',
    table: pg.ident,
    volatile: [],
    orderBy: ['id'],
    rows: [{}, { label: 'x' }, { id: 100, label: 'explicit' }, {}],
  },
  { name: 'bare: no column given (DEFAULT VALUES)', table: pg.bare, volatile: [], orderBy: ['id'], rows: [{}, {}, {}] },
  {
    name: 'pairs: composite primary key',
    table: pg.pairs,
    volatile: [],
    orderBy: ['left', 'right'],
    rows: [
      { left: 1, right: 2 },
      { left: 1, right: 3, note: 'n' },
      { left: 2, right: 1, note: null },
    ],
  },
  {
    name: 'shop.items: table in another schema, SQL default',
    table: pg.items,
    volatile: [],
    orderBy: ['sku'],
    rows: [
      { sku: 'a', priceCents: 100 },
      { sku: 'b', priceCents: 5, addedAt: '2021-01-01 00:00:00' },
    ],
  },
  {
    name: 'cased: property keys mapped by the casing option',
    table: pg.cased,
    volatile: [],
    orderBy: ['id'],
    rows: [{ firstName: 'Fay', lastSeenAt: new Date('2020-02-02T02:02:02.000Z') }, { firstName: 'Gus' }],
  },
];

export const mysqlCases: ZooCase[] = [
  {
    name: 'people: every type, defaults, $defaultFn, $onUpdate, custom type, generated column',
    table: my.people,
    volatile: ['createdAt', 'stampedAt'],
    orderBy: ['id'],
    rows: [
      {
        fullName: 'Ada',
        age: 36,
        score: 3,
        active: false,
        mood: 'happy',
        born: '1815-12-10',
        bornDate: new Date('1815-12-10T00:00:00Z'),
        wakeUp: '06:30:00',
        createdAt: new Date('2024-01-02T03:04:05.000Z'),
        seenAt: new Date('2024-05-06T07:08:09.123Z'),
        seenText: '2024-05-06 07:08:09',
        balance: '1234.50',
        weight: 61.25,
        big: 9007199254740993n,
        bigNum: 42,
        meta: { nested: { x: [1, 2] }, s: quirky },
        note: quirky,
        blob: undefined,
        code: 'given',
        touched: 7,
        pipes: ['x', 'y'],
      },
      { fullName: 'Bob' },
      { fullName: 'Cy', age: null, meta: null, mood: null },
      { fullName: quirky, pipes: [], age: undefined, big: -1n },
      { fullName: 'Dee', nameLength: 999, notAColumn: 'ignored like db.insert does' },
      { fullName: sql`concat('from ', 'sql')`, fromSql: 'given', stampedAt: new Date('2001-01-01T00:00:00.000Z') },
    ],
  },
  {
    name: 'tokens: primary key from $defaultFn',
    table: my.tokens,
    volatile: [],
    orderBy: ['id'],
    rows: [{}, { label: 'x' }, { id: 'explicit', label: 'given' }],
  },
  { name: 'bare: no column given', table: my.bare, volatile: [], orderBy: ['id'], rows: [{}, {}, {}] },
  {
    name: 'pairs: composite primary key',
    table: my.pairs,
    volatile: [],
    orderBy: ['left', 'right'],
    rows: [
      { left: 1, right: 2 },
      { left: 1, right: 3, note: 'n' },
    ],
  },
  {
    name: 'cased: property keys mapped by the casing option',
    table: my.cased,
    volatile: [],
    orderBy: ['id'],
    rows: [{ firstName: 'Fay', lastSeenAt: new Date('2020-02-02T02:02:02.000Z') }, { firstName: 'Gus' }],
  },
];

export function resetCounters(): void {
  pg.resetCounters();
  my.resetCounters();
}

/** Replaces server-chosen values by their type, where the input row did not give them. */
export function normalize(
  rows: Array<Record<string, unknown>>,
  inputs: Array<Record<string, unknown>>,
  volatile: string[],
): Array<Record<string, unknown>> {
  return rows.map((row, i) => {
    const out = { ...row };
    for (const key of volatile) {
      if (key in out && inputs[i]?.[key] === undefined) {
        const v = out[key];
        out[key] = v instanceof Date ? (Number.isNaN(v.getTime()) ? 'invalid date' : 'a date') : typeof v;
      }
    }
    return out;
  });
}

export function sortBy(rows: Array<Record<string, unknown>>, keys: string[]): Array<Record<string, unknown>> {
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const x = a[k] as string | number;
      const y = b[k] as string | number;
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  });
}
