/**
 * Value conversion for one Prisma field: user input -> driver parameter (what create() would
 * send), and driver result -> the JavaScript value create() returns. Anything create() would
 * reject is rejected here too, with UNSUPPORTED, instead of writing a row Prisma would not write.
 */
import { FastTestDbError, type SqlFamily } from '../../src/adapter-kit.js';
import { engineFor } from '../../src/adapter-kit.js';
import type { PrismaEnum, PrismaField } from './schema.js';

/** Prisma's Decimal (decimal.js) class, taken from the client runtime so results compare with create()'s. */
export type DecimalCtor = new (v: string | number) => unknown;

function reject(field: PrismaField, model: string, what: string, fix = 'pass the value create() takes for this field'): never {
  throw new FastTestDbError('UNSUPPORTED', `fastInsert ${model}.${field.name}: ${what}`, fix);
}

/** Prisma.DbNull / JsonNull / AnyNull are ObjectEnumValue instances with a _getName(). */
function nullKind(v: unknown): string | undefined {
  const o = v as { _getName?: () => string } | null;
  return o && typeof o === 'object' && typeof o._getName === 'function' ? o._getName() : undefined;
}

const two = (n: number) => String(n).padStart(2, '0');
const three = (n: number) => String(n).padStart(3, '0');

function dateParts(d: Date) {
  const day = `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${three(d.getUTCMilliseconds())}`;
  return { day, time };
}

/** A Date as SQL text for the column's native type, always in UTC as Prisma writes it. */
export function formatDate(d: Date, family: SqlFamily, nativeType: string | undefined): string {
  const { day, time } = dateParts(d);
  const native = (nativeType ?? '').replace(/\(.*$/, '');
  if (native === 'Date') return day;
  const zoned = engineFor(family).inserts.zonedTimestamps;
  if (native === 'Time' || native === 'Timetz') return zoned && native === 'Timetz' ? `${time}+00` : time;
  // PostgreSQL ignores the offset for `timestamp` columns and honours it for `timestamptz`.
  return zoned ? `${day} ${time}+00:00` : `${day} ${time}`;
}

export interface FieldCodec {
  /** Input -> driver parameter. `null` means SQL NULL. */
  write(v: unknown): unknown;
  /** Driver value -> create()'s value. */
  read(v: unknown): unknown;
}

export function codecFor(
  field: PrismaField,
  model: string,
  family: SqlFamily,
  enums: Map<string, PrismaEnum>,
  Decimal: DecimalCtor,
  parseTextArray: (s: string) => Array<string | null>,
): FieldCodec {
  const one = scalarCodec(field, model, family, enums, Decimal);
  if (!field.list) {
    return {
      write(v) {
        if (v === null && field.type !== 'Json') {
          if (!field.optional) reject(field, model, 'null given for a required field');
          return null;
        }
        return one.write(v);
      },
      read: (v) => (v === null || v === undefined ? null : one.read(v)),
    };
  }
  return {
    write(v) {
      // create() also takes { set: [...] } for scalar lists.
      if (v && typeof v === 'object' && !Array.isArray(v) && 'set' in v) v = (v as { set: unknown }).set;
      if (v === null) return null;
      if (!Array.isArray(v)) reject(field, model, `expected an array, got ${typeof v}`);
      return v.map((x) => (x === null ? null : one.write(x)));
    },
    read(v) {
      // A NULL list reads back as [] through Prisma.
      if (v === null || v === undefined) return [];
      const arr = typeof v === 'string' ? parseTextArray(v) : (v as unknown[]);
      return arr.map((x) => (x === null ? null : one.read(x)));
    },
  };
}

function enumCodec(field: PrismaField, model: string, enums: Map<string, PrismaEnum>): FieldCodec {
  const en = enums.get(field.type);
  if (!en) reject(field, model, `enum ${field.type} is not in the schema`);
  const toDb = en.values;
  const fromDb = new Map([...toDb].map(([k, v]) => [v, k]));
  return {
    write(v) {
      const db = typeof v === 'string' ? toDb.get(v) : undefined;
      if (db === undefined)
        reject(field, model, `${JSON.stringify(v)} is not a value of enum ${en.name}`, `use one of ${[...toDb.keys()].join(', ')}`);
      return db;
    },
    read: (v) => fromDb.get(String(v)) ?? String(v),
  };
}

/** What a codec of a scalar field is built from. */
interface CodecInput {
  field: PrismaField;
  model: string;
  family: SqlFamily;
  Decimal: DecimalCtor;
  nativeBoolean: boolean;
}

/** The codec of each Prisma scalar type, as create() writes and reads it. */
const SCALARS: Readonly<Record<string, (at: CodecInput) => FieldCodec>> = {
  String: ({ field, model }) => ({
    write: (v) => (typeof v === 'string' ? v : reject(field, model, `expected a string, got ${typeof v}`)),
    read: (v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)),
  }),
  Int: ({ field, model }) => ({
    write: (v) => (typeof v === 'number' && Number.isInteger(v) ? v : reject(field, model, `expected an integer number, got ${String(v)}`)),
    read: (v) => Number(v),
  }),
  Float: ({ field, model }) => ({
    write: (v) => (typeof v === 'number' ? v : reject(field, model, `expected a number, got ${typeof v}`)),
    read: (v) => Number(v),
  }),
  Boolean: ({ field, model, nativeBoolean }) => ({
    write: (v) => (typeof v === 'boolean' ? (nativeBoolean ? v : v ? 1 : 0) : reject(field, model, `expected a boolean, got ${typeof v}`)),
    read: (v) => (typeof v === 'boolean' ? v : Number(v) !== 0),
  }),
  BigInt: ({ field, model }) => ({
    write: (v) =>
      typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))
        ? String(v)
        : reject(field, model, `expected a bigint, got ${typeof v}`),
    read: (v) => BigInt(v as string),
  }),
  Decimal: ({ field, model, Decimal }) => ({
    write(v) {
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v.trim())) return v.trim();
      const d = v as { toFixed?: () => string; d?: unknown; e?: unknown };
      if (d && typeof d === 'object' && typeof d.toFixed === 'function' && 'd' in d && 'e' in d) return d.toFixed();
      return reject(field, model, `expected a Decimal, number or numeric string, got ${String(v)}`);
    },
    read: (v) => new Decimal(String(v)),
  }),
  DateTime({ field, model, family }) {
    // One call fills now() into every row with the same Date: format it once.
    let last: Date | undefined;
    let lastTime = NaN;
    let lastText = '';
    return {
      write(v) {
        // Identity and time: a caller may reuse one Date object with setTime() between rows.
        if (last !== undefined && v === last && last.getTime() === lastTime) return lastText;
        const d = v instanceof Date ? v : typeof v === 'string' ? new Date(v) : undefined;
        if (!d || Number.isNaN(d.getTime())) reject(field, model, `expected a Date or an ISO-8601 string, got ${String(v)}`);
        const text = formatDate(d, family, field.nativeType);
        if (v instanceof Date) [last, lastTime, lastText] = [v, v.getTime(), text];
        return text;
      },
      read(v) {
        if (v instanceof Date) return v;
        const s = String(v);
        if (/^\d\d:\d\d/.test(s)) return new Date(`1970-01-01T${s.replace(/[+-]\d\d(:?\d\d)?$/, '')}Z`);
        if (/^\d{4}-\d\d-\d\d$/.test(s)) return new Date(`${s}T00:00:00Z`);
        return new Date(s.includes('T') ? s : `${s.replace(' ', 'T')}Z`);
      },
    };
  },
  Json: ({ field, model }) => ({
    write(v) {
      const kind = nullKind(v);
      if (kind === 'DbNull') {
        if (!field.optional) reject(field, model, 'Prisma.DbNull given for a required Json field');
        return null;
      }
      if (kind === 'JsonNull') return 'null';
      if (kind !== undefined || v === null)
        reject(
          field,
          model,
          `${kind ?? 'null'} is ambiguous for a Json field`,
          'use Prisma.JsonNull (JSON null) or Prisma.DbNull (SQL NULL), as create() requires',
        );
      const text = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
      if (text === undefined) reject(field, model, `${typeof v} cannot be stored as JSON`);
      return text;
    },
    read: (v) => (typeof v === 'string' ? JSON.parse(v) : Buffer.isBuffer(v) ? JSON.parse(v.toString('utf8')) : v),
  }),
  Bytes: ({ field, model }) => ({
    write: (v) =>
      v instanceof Uint8Array
        ? Buffer.isBuffer(v)
          ? v
          : Buffer.from(v.buffer, v.byteOffset, v.byteLength)
        : reject(field, model, `expected a Uint8Array, got ${typeof v}`),
    read(v) {
      const b = v as Uint8Array;
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
  }),
};

function scalarCodec(
  field: PrismaField,
  model: string,
  family: SqlFamily,
  enums: Map<string, PrismaEnum>,
  Decimal: DecimalCtor,
): FieldCodec {
  if (field.kind === 'enum') return enumCodec(field, model, enums);
  const codec = Object.hasOwn(SCALARS, field.type) ? SCALARS[field.type] : undefined;
  if (!codec) return reject(field, model, `fields of type ${field.type} are not supported`, 'use create() for this model');
  return codec({ field, model, family, Decimal, nativeBoolean: engineFor(family).inserts.nativeBoolean });
}
