/**
 * The id generators Prisma's client evaluates itself for `@default(uuid() | cuid() | nanoid() | ulid())`.
 * The values are random, so "the same as create()" means the same format, length and alphabet,
 * which is what these produce. Prisma's client runtime keeps its own internal to its query
 * executor and exports none (test/adapters/prisma/runtime-model.test.ts pins that), hence this file.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { FastTestDbError } from '../../src/adapter-kit.js';

export function uuid4(): string {
  return randomUUID();
}

/** RFC 9562 version 7: 48-bit millisecond timestamp, then random bits. */
export function uuid7(): string {
  const b = randomBytes(16);
  const ms = Date.now();
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const B36 = 36;
const pad = (s: string, n: number) => s.padStart(n, '0').slice(-n);
let cuidCounter = Math.floor(Math.random() * B36 ** 4);
const fingerprint =
  pad((process.pid % B36 ** 2).toString(B36), 2) +
  pad([...hostname()].reduce((acc, ch) => acc + ch.charCodeAt(0), hostname().length + B36).toString(B36), 2);

/** cuid v1: 'c' + time + counter + fingerprint + random, 25 characters. */
export function cuid1(): string {
  cuidCounter = (cuidCounter + 1) % B36 ** 4;
  const rand = () => pad(randomBytes(4).readUInt32BE(0).toString(B36), 4);
  return 'c' + Date.now().toString(B36) + pad(cuidCounter.toString(B36), 4) + fingerprint + rand() + rand();
}

/** cuid2: a lowercase letter, then a base-36 hash of time, entropy and a counter; 24 characters. */
export function cuid2(): string {
  const first = String.fromCharCode(97 + (randomBytes(1)[0]! % 26));
  const input = Date.now().toString(B36) + randomBytes(32).toString('hex') + (cuidCounter++).toString(B36) + fingerprint;
  const hash = BigInt('0x' + createHash('sha3-512').update(input).digest('hex')).toString(B36);
  return (first + hash.slice(1)).slice(0, 24);
}

const URL_ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';

/** nanoid: `size` characters (default 21) from the URL-safe alphabet. */
export function nanoid(size = 21): string {
  const bytes = randomBytes(size);
  let id = '';
  for (let i = 0; i < size; i++) id += URL_ALPHABET[bytes[i]! & 63];
  return id;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** ULID: 10 characters of millisecond time and 16 of randomness, Crockford base 32. */
export function ulid(): string {
  let ms = Date.now();
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  const r = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[r[i]! & 31];
  return time + rand;
}

/** Evaluates a `@default(fn(args))` that Prisma computes in the client; undefined when the database computes it. */
export function clientGenerated(name: string, args: unknown[]): (() => string) | undefined {
  const a = args[0];
  switch (name) {
    case 'uuid':
      if (a === undefined || a === 4) return uuid4;
      if (a === 7) return uuid7;
      break;
    case 'cuid':
      if (a === undefined || a === 1) return cuid1;
      if (a === 2) return cuid2;
      break;
    case 'nanoid':
      if (a === undefined) return () => nanoid();
      if (typeof a === 'number') return () => nanoid(a);
      break;
    case 'ulid':
      return ulid;
    default:
      return undefined;
  }
  throw new FastTestDbError(
    'UNSUPPORTED',
    `@default(${name}(${args.map(String).join(', ')})) is not a form fastInsert knows`,
    'pass a value for this field in every row, or use create() for this model',
  );
}
